import { describe, expect, it } from 'vitest';
import type { PruneRunInfo } from '../../ledger/ledger-pruning.js';
import { selectPrunable } from './select-prunable.js';

const NOW = new Date('2026-12-01T00:00:00Z');
const day = 86_400_000;

function run(seq: number, daysAgo: number, extra: Partial<PruneRunInfo> = {}): PruneRunInfo {
  return {
    id: `r${seq}`,
    seq,
    jobName: 'nightly',
    conferenceId: 1,
    status: 'completed',
    startedAt: new Date(NOW.getTime() - daysAgo * day - 60_000),
    finishedAt: new Date(NOW.getTime() - daysAgo * day),
    pruning: 'none',
    retention: undefined,
    ...extra,
  };
}

const noPending = (): Promise<boolean> => Promise.resolve(false);
const ids = (runs: readonly { id: string }[]): string[] => runs.map((one) => one.id);

describe('selectPrunable', () => {
  const runs = [run(1, 100), run(2, 95), run(3, 60), run(4, 10), run(5, 1)];

  it('takes runs older than the age, or beyond the newest N, and both when both are given', async () => {
    expect(ids((await selectPrunable(runs, { olderThan: '90d' }, NOW, noPending)).prune)).toEqual([
      'r1',
      'r2',
    ]);
    expect(ids((await selectPrunable(runs, { keepRuns: 2 }, NOW, noPending)).prune)).toEqual([
      'r1',
      'r2',
      'r3',
    ]);
    expect(
      ids((await selectPrunable(runs, { olderThan: '12w', keepRuns: 4 }, NOW, noPending)).prune),
    ).toEqual(['r1']);
    expect((await selectPrunable(runs, {}, NOW, noPending)).prune).toEqual([]);
  });

  it('never takes the newest completed run, even when every rule selects it', async () => {
    const { prune, held } = await selectPrunable(runs, { olderThan: '0h' }, NOW, noPending);
    expect(ids(prune)).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(held.map((one) => [one.run.id, one.reason])).toEqual([
      ['r5', "the job's newest completed run (retry and the next run read it)"],
    ]);
  });

  it('stops at a run that can still be resumed, and keeps every run after it', async () => {
    const withStuck = [run(1, 100), run(2, 99, { status: 'interrupted' }), run(3, 98), run(4, 1)];
    const { prune, held } = await selectPrunable(withStuck, { olderThan: '30d' }, NOW, noPending);
    expect(ids(prune)).toEqual(['r1']);
    expect(held.map((one) => one.run.id)).toEqual(['r2', 'r3']);
    expect(held[0]?.reason).toContain('evsync resume r2');
    expect(held[1]?.reason).toContain('a run before it is kept (r2');
  });

  it('stops at a run with pending intents; skips runs already pruned; finishes a cut-off prune', async () => {
    const mixed = [
      run(1, 100, { pruning: 'done' }),
      run(2, 99, { pruning: 'started' }),
      run(3, 98),
      run(4, 97),
    ];
    const pending = (one: PruneRunInfo): Promise<boolean> => Promise.resolve(one.id === 'r3');
    const { prune, held } = await selectPrunable(mixed, { olderThan: '30d' }, NOW, pending);
    expect(ids(prune)).toEqual(['r2']);
    expect(held.map((one) => one.run.id)).toEqual(['r3', 'r4']);
    // Without any rule, only the cut-off prune is finished.
    expect(ids((await selectPrunable(mixed, {}, NOW, pending)).prune)).toEqual(['r2']);
  });

  it('does not count skipped runs among the newest N', async () => {
    const skips = [
      run(1, 5),
      run(2, 4),
      run(3, 3, { status: 'skipped' }),
      run(4, 2, { status: 'skipped' }),
      run(5, 1),
    ];
    expect(ids((await selectPrunable(skips, { keepRuns: 2 }, NOW, noPending)).prune)).toEqual(['r1']);
  });
});
