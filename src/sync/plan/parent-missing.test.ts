import { describe, expect, it } from 'vitest';
import type { Intent, IntentKind } from '../../model/intent.js';
import type { PlanLedger } from './build-plan.js';
import { buildPlan } from './build-plan.js';
import { summarizePlan, withParentLosses } from './plan-summary.js';
import { StreamPlanner, type StreamPlanLedger } from './stream-planner.js';
import { IdCache } from '../processors/id-cache.js';
import type { KnownState, RowResult } from './sync-plan.js';

const origin = (row: number): Intent['origin'] => ({ source: 'schedule.json', row });

const user = (key: string, row: number): Intent => ({
  kind: 'user',
  key,
  op: 'upsert',
  params: { client_id: key, 'user[first_name]': 'A', 'user[last_name]': 'B' },
  origin: origin(row),
  dependsOn: [],
});

const event = (key: string, row: number): Intent => ({
  kind: 'event',
  key,
  op: 'upsert',
  params: { client_id: key },
  origin: origin(row),
  dependsOn: [],
});

const link = (eventKey: string, userKey: string, row: number): Intent => ({
  kind: 'speaker',
  key: `${eventKey}/${userKey}`,
  op: 'upsert',
  params: { 'event[speakers_attributes][0][user_client_id]': userKey },
  origin: origin(row),
  dependsOn: [
    { kind: 'event', clientId: eventKey },
    { kind: 'user', clientId: userKey },
  ],
});

const skippedSpeaker = (row: number): RowResult => ({
  kind: 'user',
  key: `@schedule.json:${row}`,
  action: 'skipped',
  origin: origin(row),
  errorCode: 'EVSYNC_ROW_INCOMPLETE',
  message: 'the export has no e-mail for this speaker (email is empty)',
});

const ledger = {} as PlanLedger;

function known(ids: Partial<Record<IntentKind, Record<string, number>>> = {}): KnownState {
  return {
    hashes: new Map(),
    ids: new Map(
      Object.entries(ids).map(([kind, map]) => [kind as IntentKind, new Map(Object.entries(map))]),
    ),
  };
}

const input = (intents: Intent[], rowResults: RowResult[] = []) => ({
  jobName: 'j',
  intents,
  rowResults,
  mode: 'upsert' as const,
  threshold: { percent: 10 },
  force: false,
});

describe('the plan applies the run’s dependency rule', () => {
  it('counts a link whose user is neither in the run nor known as skipped, under speaker, with the run’s message', async () => {
    const plan = await buildPlan(
      ledger,
      input([event('e1', 1), user('u1', 2), link('e1', 'u1', 4), link('e1', 'u2', 5)], [skippedSpeaker(3)]),
      known(),
    );
    const summary = summarizePlan(plan);
    expect(summary.counts).toEqual({
      event: { create: 1 },
      user: { create: 1, skipped: 1 },
      speaker: { create: 1, skipped: 1 },
    });
    expect(summary.examples.find((e) => e.column === 'skipped' && e.kind === 'speaker')?.note).toMatch(
      /^skipped because user "u2" is unknown/,
    );
    // The link stays planned, so that resume and retry find it.
    expect(plan.work.map((item) => item.key)).toContain('e1/u2');
  });

  it('lets a link go whose user an earlier run synced, and says so in one line when most links cannot', async () => {
    const plan = await buildPlan(
      ledger,
      input([link('e1', 'u1', 1), link('e1', 'u2', 2), link('e1', 'u3', 3)]),
      known({ event: { e1: 10 }, user: { u1: 11 } }),
    );
    const summary = summarizePlan(plan);
    expect(summary.counts).toEqual({ speaker: { create: 1, skipped: 2 } });
    expect(summary.losses).toEqual([
      'speaker: 2 of 3 rows skipped: their user is neither synced in this run nor known from an earlier one. Make the users sync first (see why their rows are left out), then run again',
    ]);
  });

  it('lets a link go that names a merged user by another of its client_ids', async () => {
    // One person in two steps: the user is keyed spk-1 and also answers to eb-1 (an alias),
    // as the run's gate knows it (execute-plan.ts, parentRefs).
    const merged: Intent = { ...user('spk-1', 1), aliases: ['eb-1'] };
    const plan = await buildPlan(ledger, input([event('e1', 2), merged, link('e1', 'eb-1', 3)]), known());
    const summary = summarizePlan(plan);
    expect(summary.counts).toEqual({ event: { create: 1 }, user: { create: 1 }, speaker: { create: 1 } });
    expect(summary.losses).toEqual([]);
  });

  it('says nothing when fewer than half of a kind is lost', async () => {
    const plan = await buildPlan(ledger, input([user('u1', 1), user('u2', 2)], [skippedSpeaker(3)]), known());
    expect(summarizePlan(plan).losses).toEqual([]);
  });
});

describe('a streamed plan (evsync plan) says what the whole plan says', () => {
  /** A ledger that knows nothing synced: every key is new. */
  const empty = {
    hashesOf: () => Promise.resolve(new Map()),
    hashTails: async function* () {},
    listRuns: () => Promise.resolve([]),
    results: () => Promise.resolve([]),
    pendingIntents: () => Promise.resolve([]),
  } as unknown as StreamPlanLedger;

  async function streamed(
    chunks: ReadonlyArray<{ intents: Intent[]; rows?: RowResult[] }>,
    state: KnownState,
  ) {
    const { intents: _intents, rowResults: _rows, ...options } = input([]);
    const planner = new StreamPlanner(empty, options, new IdCache(state.ids), { dependents: true });
    for (const chunk of chunks) await planner.planChunk(chunk.intents, chunk.rows ?? []);
    planner.failedRows();
    await planner.finish();
    return planner.summary();
  }

  it('counts links read before their users as the whole plan does: sent when the user comes later, skipped when it never does', async () => {
    const chunks = [
      { intents: [link('e1', 'u1', 1), link('e1', 'u2', 2), link('e1', 'u3', 3)] },
      { intents: [event('e1', 4), user('u1', 5)], rows: [skippedSpeaker(6)] },
    ];
    const state = known({ user: { u3: 30 } });
    const whole = summarizePlan(
      await buildPlan(
        ledger,
        input(
          chunks.flatMap((chunk) => chunk.intents),
          chunks.flatMap((chunk) => chunk.rows ?? []),
        ),
        state,
      ),
    );
    const summary = await streamed(chunks, state);
    expect(summary.counts).toEqual({
      event: { create: 1 },
      user: { create: 1, skipped: 1 },
      speaker: { create: 2, skipped: 1 },
    });
    expect(summary.counts).toEqual(whole.counts);
    expect(summary.skipped).toEqual(whole.skipped);
    expect(summary.examples.find((e) => e.kind === 'speaker' && e.column === 'skipped')?.key).toBe('e1/u2');
  });

  it('tells a link whose user row failed in this run by that failure, not as unknown', async () => {
    const failed: RowResult = {
      kind: 'user',
      key: 'u2',
      action: 'failed',
      origin: origin(1),
      errorCode: 'EVSYNC_INVALID_VALUE',
      message: 'row 1, column email: "bob@" is not an e-mail address',
    };
    const summary = await streamed(
      [{ intents: [event('e1', 2), link('e1', 'u2', 3)], rows: [failed] }],
      known(),
    );
    expect(summary.examples.find((e) => e.kind === 'speaker')?.note).toMatch(
      /^skipped because user "u2" did not sync in this run: its row failed/,
    );
  });
});

describe('loss lines of what a run skipped for a missing parent', () => {
  it('adds a line for a kind that lost most of its rows, unless the plan already has one', () => {
    const counts = {
      speaker: { skipped: 9, created: 1 },
      schedule: { created: 5, skipped: 1 },
      rsvp: { skipped: 4 },
    };
    const missing = { speaker: { skipped: 9 }, schedule: { skipped: 1 }, rsvp: { skipped: 4 } };
    expect(withParentLosses(['rsvp: all 4 rows skipped: planned reason'], counts, missing)).toEqual([
      'rsvp: all 4 rows skipped: planned reason',
      'speaker: 9 of 10 rows skipped: the user or event they need is neither synced in this run nor known from an earlier one. Make those sync first (see why their rows are left out), then run again',
    ]);
  });
});
