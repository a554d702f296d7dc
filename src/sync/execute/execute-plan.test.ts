import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { memoryWriter } from '../../../test/helpers/memory-writer.js';
import { PlatformUnreachableError } from '../../platform/platform-error.js';
import { DependencyGate } from '../phases/dependency-gate.js';
import { IdCache } from '../processors/id-cache.js';
import type { SyncPlatform } from '../processors/sync-platform.js';
import { executePlan } from './execute-plan.js';

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
