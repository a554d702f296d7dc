import { Writable } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../log/logger.js';
import { sourceConfigSchema } from '../../sources/source-config.js';
import type { LoadedJob } from '../job-file.js';
import { collectIntents, ROW_INCOMPLETE } from './collect-intents.js';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/mappings');

function job(mapping: string, source: Record<string, unknown>): LoadedJob {
  return {
    name: 'j',
    mode: 'upsert',
    rate: { per_second: 10, concurrency: 4 },
    delete_threshold: { percent: 10 },
    steps: [{ mapping, source: sourceConfigSchema.parse(source) }],
    file: join(FIXTURES, 'job.yaml'),
    baseDir: FIXTURES,
  } as unknown as LoadedJob;
}

describe('collectIntents over a schedule export', () => {
  it('counts each left-out row under its own kind, and does not call columns missing that another record type has', async () => {
    const lines: string[] = [];
    const logger = createLogger(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const collected = await collectIntents(job('pretalx', { pretalx: 'pretalx-democon.json' }), {
      vendor: 'svc',
      logger,
    });
    await new Promise((resolve) => setImmediate(resolve));
    const skipped = collected.rowResults.filter((row) => row.action === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    // Speakers without an e-mail are users lost for want of a value, not events.
    expect(new Set(skipped.map((row) => `${row.kind} ${row.errorCode}`))).toEqual(
      new Set([`user ${ROW_INCOMPLETE}`]),
    );
    expect(lines.join('')).not.toContain('source lacks columns');
  });
});
