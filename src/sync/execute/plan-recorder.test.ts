import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { memoryWriter } from '../../../test/helpers/memory-writer.js';
import { DependencyGate } from '../phases/dependency-gate.js';
import { IdCache } from '../processors/id-cache.js';
import type { SyncPlatform } from '../processors/sync-platform.js';
import { executePlan } from './execute-plan.js';
import { FIRST_PLAN_CHUNK, PLAN_CHUNK, recordPlanInOrder } from './plan-recorder.js';

const intent = (
  kind: PlannedIntent['kind'],
  key: string,
  plannedAction: PlannedIntent['plannedAction'] = 'create',
): PlannedIntent => ({
  kind,
  key,
  op: 'upsert',
  plannedAction,
  params: { 'user[svc_auth_attributes][email]': `${key}@x.org` },
  origin: null,
  dependsOn: [],
  hash: `h-${key}`,
});

const users = (count: number, prefix = 'u'): PlannedIntent[] =>
  Array.from({ length: count }, (_, i) => intent('user', `${prefix}${i}`));

/** A ledger whose chunk writes finish only when the test says so. */
function slowLedger() {
  const chunks: PlannedIntent[][] = [];
  const releases: Array<(error?: Error) => void> = [];
  return {
    chunks,
    release: (index: number, error?: Error) => releases[index]?.(error),
    recordPlannedIntents: (_runId: string, items: readonly PlannedIntent[]) =>
      new Promise<void>((resolve, reject) => {
        chunks.push([...items]);
        releases.push((error) => (error ? reject(error) : resolve()));
      }),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Sends `work` through executePlan while the slow ledger records its plan; what went out is in `sent`. */
function sendWhileRecording(ledger: ReturnType<typeof slowLedger>, work: PlannedIntent[]) {
  const recording = recordPlanInOrder(ledger, 'r1', work, []);
  const sent: string[] = [];
  const platform = {
    vendor: 'svc',
    users: {
      create: (params: Record<string, string>) => {
        sent.push(params['user[svc_auth_attributes][email]'] ?? '');
        return Promise.resolve({ outcome: 'created', user: { id: sent.length } });
      },
    },
  } as unknown as SyncPlatform;
  const writer = memoryWriter();
  const running = executePlan({
    runId: 'r1',
    work,
    context: { platform, ids: new IdCache(), markSendStarted: () => Promise.resolve() },
    gate: new DependencyGate(() => false),
    writer,
    concurrency: 4,
    recorded: recording.recorded,
  });
  return { sent, writer, running, recording };
}

describe('recordPlanInOrder', () => {
  it('records chunks one after another, in sending order: phase by phase, then what needs no call', async () => {
    const ledger = slowLedger();
    const link = { ...intent('speaker', 's1'), dependsOn: [{ kind: 'user' as const, clientId: 'u0' }] };
    const work = [link, ...users(FIRST_PLAN_CHUNK + 1)];
    const unchanged = [intent('user', 'same', 'unchanged')];
    const recording = recordPlanInOrder(ledger, 'r1', work, unchanged);
    await tick();
    expect(ledger.chunks).toHaveLength(1); // the second waits for the first
    expect(ledger.chunks[0]?.[0]?.key).toBe('u0');
    ledger.release(0);
    await tick();
    expect(ledger.chunks.map((chunk) => chunk.map((item) => item.key))).toEqual([
      users(FIRST_PLAN_CHUNK).map((item) => item.key),
      [`u${FIRST_PLAN_CHUNK}`, 's1', 'same'],
    ]);
    ledger.release(1);
    await recording.done;
    expect(await recording.recorded(link)).toBeUndefined();
  });

  it('records a small first chunk, so that sending starts early, then chunks of PLAN_CHUNK', async () => {
    const ledger = slowLedger();
    const work = users(FIRST_PLAN_CHUNK + PLAN_CHUNK + 1);
    const recording = recordPlanInOrder(ledger, 'r1', work, []);
    for (let chunk = 0; chunk < 3; chunk++) {
      await tick();
      ledger.release(chunk);
    }
    await recording.done;
    expect(ledger.chunks.map((chunk) => chunk.length)).toEqual([FIRST_PLAN_CHUNK, PLAN_CHUNK, 1]);
  });

  it('answers the error for every item of a chunk that failed and of the chunks after it', async () => {
    const ledger = slowLedger();
    const work = users(FIRST_PLAN_CHUNK * 2);
    const recording = recordPlanInOrder(ledger, 'r1', work, []);
    await tick();
    ledger.release(0, new Error('disk full'));
    await expect(recording.done).rejects.toThrow('disk full');
    expect(await recording.recorded(work[0]!)).toEqual(new Error('disk full'));
    expect(await recording.recorded(work[FIRST_PLAN_CHUNK]!)).toEqual(new Error('disk full'));
    expect(ledger.chunks).toHaveLength(1);
    expect(await recording.recorded(intent('user', 'stranger'))).toBeInstanceOf(Error);
  });
});

describe('executePlan while the plan is being recorded', () => {
  it('sends no intent before its chunk of the plan is recorded', async () => {
    const ledger = slowLedger();
    const work = users(FIRST_PLAN_CHUNK + 10);
    const { sent, writer, running } = sendWhileRecording(ledger, work);
    await tick();
    expect(sent).toEqual([]);
    ledger.release(0);
    await tick();
    expect(sent).toHaveLength(FIRST_PLAN_CHUNK);
    ledger.release(1);
    const outcome = await running;
    expect(outcome.stopped).toBeUndefined();
    expect(sent).toHaveLength(FIRST_PLAN_CHUNK + 10);
    expect(writer.results).toHaveLength(FIRST_PLAN_CHUNK + 10);
  });

  it('aborts the run, sends nothing more and records no result for what was not in the plan', async () => {
    const ledger = slowLedger();
    const work = users(FIRST_PLAN_CHUNK + 10);
    const { sent, writer, running, recording } = sendWhileRecording(ledger, work);
    await tick();
    ledger.release(0);
    await tick();
    ledger.release(1, new Error('the ledger went away'));
    const outcome = await running;
    await expect(recording.done).rejects.toThrow();
    expect(outcome.stopped).toBe('aborted');
    expect(outcome.reason).toMatch(/plan could not be recorded.*the ledger went away/);
    expect(sent).toHaveLength(FIRST_PLAN_CHUNK);
    expect(writer.results).toHaveLength(FIRST_PLAN_CHUNK);
  });
});
