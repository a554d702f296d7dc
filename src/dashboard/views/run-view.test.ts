import { describe, expect, it } from 'vitest';
import { runSummary } from '../dashboard-data.js';
import type { RunRecord } from '../../model/run-record.js';
import { actionsSection } from './run-view.js';

const run = (status: RunRecord['status']): RunRecord => ({
  id: '20261130-020000-aaaa',
  seq: 1,
  jobName: 'nightly',
  mode: 'upsert',
  status,
  startedAt: new Date('2026-11-30T02:00:00Z'),
  finishedAt: status === 'running' ? null : new Date('2026-11-30T02:00:05Z'),
  counts: { created: 3 },
  options: {},
  conference: null,
});

const buttons = async (status: RunRecord['status']): Promise<string[]> =>
  [...String(await actionsSection({ run: runSummary(run(status)) })).matchAll(/data-step="(\w+)"/g)].map(
    (match) => match[1]!,
  );

describe("a run's buttons", () => {
  // A tester's find: "Run the job again…" on a live run answered 409, the job being busy.
  it('offer no run of the job again while the run goes on, and do once it ended', async () => {
    expect(await buttons('running')).toEqual([]);
    expect(await buttons('completed')).toEqual(['rerun']);
  });
});

describe("a cut-off run's duration", () => {
  // An organiser's find: a run whose process was killed showed a duration to "now", longer on
  // every look; it took until its last result, as `evsync runs` says.
  it('stops at its last result, and says so', () => {
    const lastResultAt = new Date('2026-11-30T02:00:42Z');
    const summary = runSummary(run('running'), {}, true, lastResultAt);
    expect(summary.durationMs).toBe(42_000);
    expect(summary.durationNote).toBe(' (until cut off)');
    // Without a result: nothing was done, its time is none.
    expect(runSummary(run('running'), {}, true).durationMs).toBe(0);
    expect(runSummary(run('completed')).durationNote).toBe('');
  });
});
