import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { withoutMissingPicks } from '../phases/schedule-picks.js';
import { unchangedPartialSchedule } from './partial-schedules.js';
import { IdCache } from '../processors/id-cache.js';
import type { KeyRemoval } from '../../ledger/ledger.js';
import { StreamPlanner, type StreamPlanLedger } from './stream-planner.js';

const schedule: PlannedIntent = {
  kind: 'schedule',
  key: 'att-1',
  op: 'upsert',
  plannedAction: 'update',
  params: { user_client_id: 'att-1', 'event_client_ids[0]': 's1', 'event_client_ids[1]': 's2' },
  origin: null,
  dependsOn: [
    { kind: 'user', clientId: 'att-1' },
    { kind: 'event', clientId: 's1' },
    { kind: 'event', clientId: 's2' },
  ],
  hash: 'whole',
};
const sentWithoutS2 = withoutMissingPicks(
  schedule,
  [
    {
      parent: { kind: 'event', clientId: 's2' },
      why: 'unknown',
      reason: '',
      message: '',
      code: 'EVSYNC_PARENT_MISSING',
    },
  ],
  () => false,
)!.item.hash;

describe('a schedule sent without some events', () => {
  it('is unchanged while the same events are missing, planned as what was sent', () => {
    const same = unchangedPartialSchedule(schedule, sentWithoutS2, (dep) => dep.clientId !== 's2');
    expect(same).toMatchObject({ plannedAction: 'unchanged', hash: sentWithoutS2 });
    expect(same!.params).toEqual({ user_client_id: 'att-1', 'event_client_ids[0]': 's1' });
  });

  it('goes whole once a missing event is there, and is never kept back for a missing user', () => {
    expect(unchangedPartialSchedule(schedule, sentWithoutS2, () => true)).toBeUndefined();
    expect(
      unchangedPartialSchedule(
        schedule,
        sentWithoutS2,
        (dep) => dep.kind === 'event' && dep.clientId === 's1',
      ),
    ).toBeUndefined();
    expect(unchangedPartialSchedule(schedule, 'another', (dep) => dep.clientId !== 's2')).toBeUndefined();
  });
});

describe('evsync plan of a schedule last sent short', () => {
  /** A ledger that synced `schedule` without s2, and deleted s2 in a run if `removal` says so. */
  function ledger(removal?: KeyRemoval): StreamPlanLedger {
    return {
      hashesOf: (kind: string) =>
        Promise.resolve(new Map(kind === 'schedule' ? [[schedule.key, sentWithoutS2]] : [])),
      hashTails: async function* () {},
      listRuns: () => Promise.resolve([]),
      results: () => Promise.resolve([]),
      pendingIntents: () => Promise.resolve([]),
      lastRemovals: (kind: string, keys: readonly string[]) =>
        Promise.resolve(
          new Map(removal && kind === 'event' && keys.includes('s2') ? [['s2', removal] as const] : []),
        ),
    } as unknown as StreamPlanLedger;
  }

  async function planned(removal?: KeyRemoval) {
    const ids = new IdCache([
      ['user', new Map([['att-1', 1]])],
      ['event', new Map([['s1', 2]])],
    ]);
    const options = { jobName: 'j', mode: 'upsert' as const, threshold: { percent: 10 }, force: false };
    const planner = new StreamPlanner(ledger(removal), options, ids, { dependents: true });
    const { plannedAction: _action, hash: _hash, ...intent } = schedule;
    await planner.planChunk([{ ...intent, origin: { source: 'picks.csv', row: 1 } }], []);
    planner.failedRows();
    await planner.finish();
    return planner.summary();
  }

  it('counts it skipped when a pick is of an event in no source, as the run records it', async () => {
    const summary = await planned();
    expect(summary.counts).toEqual({ schedule: { skipped: 1 } });
    expect(summary.skipped).toMatchObject({ lost: 1, onPurpose: 0 });
    expect(summary.losses).toEqual([
      'schedule: all 1 row skipped: not sent again: they pick events that are in no source, whose rows failed, or that the platform refused. Add those events (or fix their rows), or take the picks out of the source',
    ]);
    expect(summary.examples.find((e) => e.kind === 'schedule')?.note).toMatch(
      /^not sent again: the platform has it as last sent, sent without 1 of its 2 events: event "s2" is unknown/,
    );
  });

  it('counts it unchanged when the event was deleted by a run', async () => {
    const summary = await planned({ runId: 'R', action: 'deleted', at: new Date('2026-05-01T00:00:00Z') });
    expect(summary.counts).toEqual({ schedule: { unchanged: 1 } });
    expect(summary.skipped).toMatchObject({ lost: 0 });
  });
});

describe('evsync plan of a schedule whose pick the platform refused when last sent', () => {
  // F7: the event's row passes evsync's checks, the platform answers 422 every night.
  const refusal = {
    runId: 'R1',
    at: new Date('2026-05-01T00:00:00Z'),
    message: 'POST /event answered 422: event[exhibitor_client_id] names no exhibitor ("nope")',
  };
  function ledger(refused: boolean): StreamPlanLedger {
    return {
      hashesOf: (kind: string) =>
        Promise.resolve(new Map(kind === 'schedule' ? [[schedule.key, sentWithoutS2]] : [])),
      hashTails: async function* () {},
      listRuns: () => Promise.resolve([]),
      results: () => Promise.resolve([]),
      pendingIntents: () => Promise.resolve([]),
      lastRemovals: () => Promise.resolve(new Map()),
      lastRefusals: (kind: string, keys: readonly string[]) =>
        Promise.resolve(
          new Map(refused && kind === 'event' && keys.includes('s2') ? [['s2', refusal] as const] : []),
        ),
    } as unknown as StreamPlanLedger;
  }

  async function planned(refused: boolean) {
    const ids = new IdCache([
      ['user', new Map([['att-1', 1]])],
      ['event', new Map([['s1', 2]])],
    ]);
    const options = { jobName: 'j', mode: 'upsert' as const, threshold: { percent: 10 }, force: false };
    const planner = new StreamPlanner(ledger(refused), options, ids, { dependents: true });
    const { plannedAction: _action, hash: _hash, ...intent } = schedule;
    // s2's row is in the sources and valid: sent again (a create), most likely refused again.
    const s2 = {
      kind: 'event' as const,
      key: 's2',
      op: 'upsert' as const,
      params: { client_id: 's2', 'event[exhibitor_client_id]': 'nope' },
      origin: { source: 'events.csv', row: 2 },
      dependsOn: [],
    };
    await planner.planChunk([s2, { ...intent, origin: { source: 'picks.csv', row: 1 } }], []);
    planner.failedRows();
    await planner.finish();
    return planner.summary();
  }

  it('counts it skipped, a pick lost, naming the refusal, as the run records it', async () => {
    const summary = await planned(true);
    expect(summary.counts).toEqual({ event: { create: 1 }, schedule: { skipped: 1 } });
    expect(summary.skipped).toMatchObject({ lost: 1 });
    expect(summary.examples.find((e) => e.kind === 'schedule')?.note).toMatch(
      /^not sent again: the platform has it as last sent, sent without 1 of its 2 events: event "s2" was refused by the platform in run R1 on 2026-05-01, and no run has synced it since \(POST \/event answered 422/,
    );
  });

  it('counts it an update, to go whole, when the event was not refused', async () => {
    const summary = await planned(false);
    expect(summary.counts).toEqual({ event: { create: 1 }, schedule: { update: 1 } });
  });
});
