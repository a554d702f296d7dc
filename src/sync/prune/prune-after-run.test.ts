import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Ledger } from '../../ledger/ledger.js';
import { createLogger } from '../../log/logger.js';
import { pruneAfterScheduledRun } from './prune-after-run.js';

function capturedLogger(): { logger: ReturnType<typeof createLogger>; lines: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { logger: createLogger({ level: 'info' }, sink), lines: () => text };
}

describe('pruneAfterScheduledRun', () => {
  it('logs a failing prune and never throws: the run’s outcome stands', async () => {
    const ledger = {
      pruning: () => ({ runs: () => Promise.reject(new Error('ledger went away')) }),
    } as unknown as Ledger;
    const { logger, lines } = capturedLogger();
    await expect(
      pruneAfterScheduledRun(ledger, { name: 'nightly', retention: { keep_runs: 3 } }, logger, {}),
    ).resolves.toBeUndefined();
    expect(lines()).toContain('ledger went away');
    expect(lines()).toContain('the run');
  });

  it('does nothing without a retention from the job file or the environment', async () => {
    const ledger = {
      pruning: () => {
        throw new Error('must not be asked');
      },
    } as unknown as Ledger;
    const { logger, lines } = capturedLogger();
    await pruneAfterScheduledRun(ledger, { name: 'nightly' }, logger, {});
    expect(lines()).toBe('');
  });

  it('takes the environment’s retention for a job file without one', async () => {
    let asked: unknown;
    const ledger = {
      pruning: () => ({
        runs: (filter: unknown) => {
          asked = filter;
          return Promise.resolve([]);
        },
      }),
    } as unknown as Ledger;
    const { logger } = capturedLogger();
    await pruneAfterScheduledRun(ledger, { name: 'nightly' }, logger, { EVSYNC_RETENTION_KEEP_RUNS: '5' });
    expect(asked).toEqual({ jobName: 'nightly' });
  });
});
