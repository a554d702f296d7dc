import { describe, expect, it } from 'vitest';
import type { Intent, IntentKind } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { PlanLedger } from './build-plan.js';
import { buildPlan } from './build-plan.js';
import { hashIntent } from './params-hash.js';
import { diffIntents } from './plan-intents.js';
import { formatPlanSummary } from './format-plan-summary.js';
import { FULL_RUN_LINE, summarizePlan } from './plan-summary.js';
import type { KnownState } from './sync-plan.js';

// `evsync run --full` (docs/sync-engine.md, "Full runs"): what the ledger says is synced is
// sent again, so that what an organiser removed on the platform by hand comes back.

const origin = (row: number): Intent['origin'] => ({ source: 'in.csv', row, line: row + 1 });

const user = (key: string, last = 'B', row = 1): Intent => ({
  kind: 'user',
  key,
  op: 'upsert',
  params: { client_id: key, 'user[first_name]': 'A', 'user[last_name]': last },
  origin: origin(row),
  dependsOn: [],
});

const event = (key: string, row = 1): Intent => ({
  kind: 'event',
  key,
  op: 'upsert',
  params: { client_id: key, 'event[name]': key },
  origin: origin(row),
  dependsOn: [],
});

const speaker = (eventKey: string, userKey: string, type = 'speaker'): Intent => ({
  kind: 'speaker',
  key: `${eventKey}/${userKey}`,
  op: 'upsert',
  params: { 'speaker[user_client_id]': userKey, 'speaker[type_name]': type },
  origin: origin(1),
  dependsOn: [
    { kind: 'event', clientId: eventKey },
    { kind: 'user', clientId: userKey },
  ],
});

const checkIn = (key: string): Intent => ({
  kind: 'check_in',
  key,
  op: 'upsert',
  params: { 'check_in[text]': 'here' },
  origin: origin(1),
  dependsOn: [],
});

/** The ledger's state after a run that synced exactly `synced` as it is now. */
function syncedState(synced: Intent[], ids: Partial<Record<IntentKind, Record<string, number>>>): KnownState {
  const hashes = new Map<IntentKind, Map<string, string>>();
  for (const intent of synced) {
    let map = hashes.get(intent.kind);
    if (!map) hashes.set(intent.kind, (map = new Map<string, string>()));
    map.set(intent.key, hashIntent(intent.op, intent.params));
  }
  return {
    hashes,
    ids: new Map(
      Object.entries(ids).map(([kind, map]) => [kind as IntentKind, new Map(Object.entries(map))]),
    ),
  };
}

const actions = (items: PlannedIntent[]): Record<string, string> =>
  Object.fromEntries(items.map((item) => [`${item.kind} ${item.key}`, item.plannedAction]));

describe('diffIntents, full', () => {
  const intents = [user('u1'), user('u2'), user('u3', 'Changed'), event('e1'), speaker('e1', 'u1')];
  const state = syncedState([user('u1'), user('u2'), user('u3'), event('e1'), speaker('e1', 'u1')], {
    // u2's id was lost (or never written); the hash says it was synced.
    user: { u1: 1, u3: 3 },
    event: { e1: 10 },
  });

  it('finds nothing unchanged: known objects are updates, the rest creates, links adds', () => {
    const plain = diffIntents(intents, state);
    expect(actions(plain.unchanged)).toEqual({
      'user u1': 'unchanged',
      'user u2': 'unchanged',
      'event e1': 'unchanged',
      'speaker e1/u1': 'unchanged',
    });
    const full = diffIntents(intents, state, undefined, true);
    expect(full.unchanged).toEqual([]);
    expect(actions(full.work)).toEqual({
      'user u1': 'update',
      // Not in the id map: a create, which the processor resolves by e-mail if the user is there.
      'user u2': 'create',
      'user u3': 'update',
      'event e1': 'update',
      // An add of a link that is there is done (§4.4); an update would remove and add it again.
      'speaker e1/u1': 'create',
    });
  });

  it('keeps a changed link an update, so that a new speaker type is still sent as one', () => {
    const state = syncedState([speaker('e1', 'u1')], {});
    const full = diffIntents([speaker('e1', 'u1', 'moderator')], state, undefined, true);
    expect(actions(full.work)).toEqual({ 'speaker e1/u1': 'update' });
  });

  it('never posts a synced check-in again: §4.1 has nothing to find it by', () => {
    const state = syncedState([checkIn('c1')], {});
    const full = diffIntents([checkIn('c1'), checkIn('c2')], state, undefined, true);
    expect(actions(full.unchanged)).toEqual({ 'check_in c1': 'unchanged' });
    expect(actions(full.work)).toEqual({ 'check_in c2': 'create' });
  });

  it('gives every intent the hash of its params: the run after a full run finds them unchanged', () => {
    const full = diffIntents(intents, state, undefined, true);
    const after = syncedState(intents, { user: { u1: 1, u2: 2, u3: 3 }, event: { e1: 10 } });
    for (const item of full.work) {
      expect(item.hash).toBe(hashIntent(item.op, item.params));
      expect(after.hashes.get(item.kind)?.get(item.key)).toBe(item.hash);
    }
    expect(diffIntents(intents, after).work).toEqual([]);
  });
});

describe('buildPlan, full', () => {
  it('plans mirror deletes as any run does: a full run does not widen them', async () => {
    const ledger = {
      knownKeys: (kind: IntentKind) => Promise.resolve(kind === 'user' ? ['u1', 'u2', 'gone'] : []),
    } as unknown as PlanLedger;
    const state = syncedState([user('u1'), user('u2'), user('gone')], {
      user: { u1: 1, u2: 2, gone: 9 },
    });
    const input = {
      jobName: 'j',
      intents: [user('u1'), user('u2')],
      rowResults: [],
      mode: 'mirror' as const,
      threshold: { percent: 100 },
      force: false,
    };
    const plain = await buildPlan(ledger, input, state);
    const full = await buildPlan(ledger, { ...input, full: true }, state);
    const deletes = (plan: typeof plain) => plan.work.filter((item) => item.plannedAction === 'delete');
    expect(actions(deletes(full))).toEqual({ 'user gone': 'delete' });
    expect(deletes(full)).toEqual(deletes(plain));
    expect(full.deletes).toEqual(plain.deletes);
    expect(actions(full.work)).toEqual({ 'user u1': 'update', 'user u2': 'update', 'user gone': 'delete' });
  });
});

describe('formatPlanSummary, full', () => {
  it('says above the table that it is a full run, and only then', () => {
    const plan = diffIntents([user('u1')], syncedState([user('u1')], { user: { u1: 1 } }), undefined, true);
    const summary = summarizePlan({ ...plan, rowResults: [], deletes: [], planMs: 0 });
    expect(formatPlanSummary(summary)).not.toContain(FULL_RUN_LINE);
    const text = formatPlanSummary({ ...summary, full: true });
    expect(text.split('\n')[0]).toBe(FULL_RUN_LINE);
    expect(summary.counts.user).toEqual({ update: 1 });
  });
});
