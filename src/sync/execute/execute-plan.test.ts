import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { memoryWriter } from '../../../test/helpers/memory-writer.js';
import { PlatformUnreachableError } from '../../platform/platform-error.js';
import { DependencyGate } from '../phases/dependency-gate.js';
import { IdCache } from '../processors/id-cache.js';
import type { SyncPlatform } from '../processors/sync-platform.js';
import { hashIntent } from '../plan/params-hash.js';
import { executePlan, runIntent } from './execute-plan.js';

const users = (count: number): PlannedIntent[] =>
  Array.from({ length: count }, (_, i) => ({
    kind: 'user' as const,
    key: `u${i}`,
    op: 'upsert' as const,
    plannedAction: 'create' as const,
    params: { client_id: `u${i}`, 'user[svc_auth_attributes][email]': `u${i}@x.org` },
    origin: null,
    dependsOn: [],
    hash: `h${i}`,
  }));

function platformThat(create: SyncPlatform['users']['create']): SyncPlatform {
  return { vendor: 'svc', users: { create } } as unknown as SyncPlatform;
}

describe('executePlan', () => {
  it('aborts after a streak of "platform unreachable" instead of failing every row', async () => {
    const writer = memoryWriter();
    const outcome = await executePlan({
      runId: 'r1',
      work: users(50),
      context: {
        platform: platformThat(() =>
          Promise.reject(new PlatformUnreachableError({ method: 'POST', path: '/user' }, 'ECONNREFUSED')),
        ),
        ids: new IdCache(),
        markSendStarted: () => Promise.resolve(),
      },
      gate: new DependencyGate(() => false),
      writer,
      concurrency: 2,
      platformDownLimit: 5,
    });
    expect(outcome.stopped).toBe('aborted');
    expect(outcome.reason).toMatch(/could not be reached for 5 intents in a row/);
    // The intents in flight when the streak was reached still end with a result; the rest stay pending.
    expect(writer.results.length).toBeGreaterThanOrEqual(5);
    expect(writer.results.length).toBeLessThan(10);
    expect(writer.results.every((r) => r.action === 'failed' && r.hash === null)).toBe(true);
  });

  it('stops taking work when the signal aborts, and records what was in flight', async () => {
    const writer = memoryWriter();
    const controller = new AbortController();
    let calls = 0;
    const outcome = await executePlan({
      runId: 'r2',
      work: users(40),
      context: {
        platform: platformThat(async (params) => {
          calls += 1;
          if (calls === 3) controller.abort();
          await new Promise((r) => setTimeout(r, 5));
          return { outcome: 'created', user: { id: Number(params.client_id?.slice(1)) + 1 } };
        }),
        ids: new IdCache(),
        markSendStarted: () => Promise.resolve(),
      },
      gate: new DependencyGate(() => false),
      writer,
      concurrency: 2,
      signal: controller.signal,
    });
    expect(outcome.stopped).toBe('interrupted');
    expect(writer.results.length).toBe(calls);
    expect(calls).toBeLessThan(6);
    expect(writer.results.every((r) => r.action === 'created' && r.hash !== null)).toBe(true);
  });
});

describe('a schedule short of an event the platform refused in this run (F7)', () => {
  const schedule: PlannedIntent = {
    kind: 'schedule',
    key: 'att-1',
    op: 'upsert',
    plannedAction: 'update',
    params: { 'event_client_ids[0]': 's1', 'event_client_ids[1]': 's2' },
    origin: null,
    dependsOn: [
      { kind: 'user', clientId: 'att-1' },
      { kind: 'event', clientId: 's1' },
      { kind: 'event', clientId: 's2' },
    ],
    hash: 'whole',
  };
  /** The hash of the list without s2: what the platform has when it was last sent so. */
  const shortHash = hashIntent('upsert', { 'event_client_ids[0]': 's1' });

  async function sent(synced: string | undefined) {
    const replaced: unknown[] = [];
    const platform = {
      vendor: 'svc',
      events: { replaceSchedule: (params: unknown) => (replaced.push(params), Promise.resolve([])) },
    } as unknown as SyncPlatform;
    const gate = new DependencyGate((dep) => dep.clientId !== 's2');
    gate.settle({ kind: 'event', clientId: 's2' }, false, 'POST /event answered 422: names no exhibitor');
    const outcome = await runIntent(schedule, {
      gate,
      context: {
        platform,
        ids: new IdCache(),
        markSendStarted: () => Promise.resolve(),
        syncedSchedule: (key) => Promise.resolve(key === 'att-1' ? synced : undefined),
      },
    });
    return { outcome, replaced };
  }

  it('is not sent again when the platform has that short list: a pick lost, told', async () => {
    const { outcome, replaced } = await sent(shortHash);
    expect(replaced).toEqual([]);
    expect(outcome).toMatchObject({ action: 'skipped', errorCode: 'EVSYNC_SCHEDULE_PICKS_MISSING' });
    expect(outcome.message).toMatch(
      /^not sent again: the platform has it as last sent, sent without 1 of its 2 events: event "s2" did not sync in this run: POST \/event answered 422/,
    );
  });

  it('is sent short, with its warning, when the platform has another list', async () => {
    const { outcome, replaced } = await sent('whole-before');
    expect(replaced).toEqual([{ 'user[client_id]': 'att-1', 'event_client_ids[0]': 's1' }]);
    expect(outcome).toMatchObject({
      action: 'updated',
      errorCode: 'EVSYNC_SCHEDULE_PICKS_MISSING',
      hash: shortHash,
    });
  });
});
