import { Erasures } from './erasures.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** A logger at `info` whose lines (JSON) are kept in `lines`. */
function capturedLogger(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
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
  return { lines, logger };
}

describe('collectIntents over a schedule export', () => {
  it('counts each left-out row under its own kind, and does not call columns missing that another record type has', async () => {
    const { lines, logger } = capturedLogger();
    const collected = await collectIntents(job('pretalx', { pretalx: 'pretalx-democon.json' }), {
      vendor: 'svc',
      erasures: Erasures.none(),
      logger,
    });
    await new Promise((resolve) => setImmediate(resolve));
    const skipped = collected.rowResults.filter((row) => row.action === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    // Speakers without an e-mail are users lost for want of a value, not events.
    expect(new Set(skipped.map((row) => `${row.kind} ${row.errorCode}`))).toEqual(
      new Set([`user ${ROW_INCOMPLETE}`]),
    );
    expect(lines.join('')).not.toMatch(/lacks? columns/);
  });
});

describe('collectIntents keys a failed row by its person', () => {
  it('uses the client_id it can read, apart for a repeat, and its place when none can be read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evsync-collect-'));
    writeFileSync(
      join(dir, 'people.csv'),
      'client_id,email,first_name,last_name\n' +
        'u1,u1@example.org,Ann,One\n' +
        'u2,nope,Bo,Two\n' +
        'u2,still-nope,Bo,Two\n' +
        ',u4@example.org,Cy,Four\n',
    );
    const collected = await collectIntents(
      { ...job('users', { csv: 'people.csv' }), baseDir: dir },
      {
        vendor: 'svc',
        erasures: Erasures.none(),
      },
    );
    rmSync(dir, { recursive: true, force: true });
    expect(collected.rowResults.map((row) => [row.key, row.origin?.row])).toEqual([
      ['u2', 2],
      ['u2#row3', 3],
      ['@people.csv:4', 4],
    ]);
    // What a person searches by travels with the result (the ledger stores it redacted).
    expect(collected.rowResults[0]?.params).toMatchObject({
      'user[first_name]': 'Bo',
      'user[last_name]': 'Two',
    });
    expect(collected.rowResults[0]?.keptKeys).toEqual([{ kind: 'user', key: 'u2' }]);
  });
});

describe('collectIntents records a failed row under a code that fails it', () => {
  it('names the key Excel rounded, not the phone with letters that would only be left out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evsync-collect-code-'));
    try {
      writeFileSync(
        join(dir, 'eb.csv'),
        'Order #,First Name,Last Name,Email,Attendee #,Attendee Status,Cell Phone\n' +
          '9001,Ann,Test,ann@example.org,2.36021E+11,Attending,+1-800-FLOWERS\n',
      );
      const collected = await collectIntents(
        { ...job('eventbrite', { csv: 'eb.csv' }), baseDir: dir },
        { vendor: 'svc', erasures: Erasures.none() },
      );
      expect(collected.rowResults).toHaveLength(1);
      const [ann] = collected.rowResults;
      expect(ann).toMatchObject({ action: 'failed', errorCode: 'MAPPING_EXCEL_NUMBER' });
      // The message still names every problem of the row.
      expect(ann?.message).toContain('"+1-800-FLOWERS" is not a phone number');
      expect(ann?.message).toContain('"eb-2.36021E+11" holds 2.36021E+11');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('collectIntents over several CSV files', () => {
  it('says once for the run how the files were read and which columns they lack', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evsync-collect-notes-'));
    try {
      for (const name of ['a', 'b', 'c'])
        writeFileSync(
          join(dir, `${name}.csv`),
          `client_id,email,first_name,last_name\n${name}1,${name}1@example.org,Ann,One\n`,
        );
      const { lines, logger } = capturedLogger();
      const three = {
        ...job('users', { csv: './a.csv' }),
        steps: ['a', 'b', 'c'].map((name) => ({
          mapping: 'users',
          source: sourceConfigSchema.parse({ csv: `./${name}.csv` }),
        })),
        merge: { users: false },
        baseDir: dir,
      } as LoadedJob;
      await collectIntents(three, { vendor: 'svc', erasures: Erasures.none(), logger });
      await new Promise((resolve) => setImmediate(resolve));
      const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      const read = messages.filter((m) => /how the sources were read/.test(m));
      expect(read).toHaveLength(1);
      expect(read[0]).toMatch(/\.\/a\.csv, CSV file \.\/b\.csv, CSV file \.\/c\.csv: read as UTF-8/);
      expect(messages.filter((m) => /lacks? columns/.test(m))).toEqual([
        '3 sources lack columns the mapping reads; their values read as empty',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
