import { describe, expect, it } from 'vitest';
import type { IntentKind } from '../model/intent.js';
import type { PendingFilter, PlannedIntentRecord } from '../model/planned-intent.js';
import { pendingReads } from './pending-reads.js';

interface Pending {
  runId: string;
  kind: IntentKind;
  key: string;
}

/** A ledger whose pending intents are `pending`, in plan order, and whose reads take 10 ms. */
function slowLedger(pending: readonly Pending[]) {
  const reads: Array<{ runId: string; filter: PendingFilter | undefined }> = [];
  return {
    reads,
    pendingIntents: async (runId: string, filter?: PendingFilter): Promise<PlannedIntentRecord[]> => {
      reads.push({ runId, filter });
      await new Promise((r) => setTimeout(r, 10));
      const ofRun = pending.filter((p) => p.runId === runId && filter?.kinds?.includes(p.kind));
      const asked = ofRun.filter((p) => filter?.keys?.includes(p.key));
      const last = Math.max(...asked.map((p) => ofRun.indexOf(p)));
      const ahead = asked.length === 0 ? [] : ofRun.slice(last + 1, last + 1 + (filter?.ahead ?? 0));
      return [...asked, ...ahead].map((p) => ({ ...p }) as unknown as PlannedIntentRecord);
    },
  };
}

const shown = (record: PlannedIntentRecord | undefined): string | undefined =>
  record && `${record.runId}:${record.kind}:${record.key}`;

describe('pending reads', () => {
  it('reads the first job alone, and jobs taken meanwhile in one query per run and pass', async () => {
    const ledger = slowLedger([
      { runId: 'r1', kind: 'user', key: 'a' },
      { runId: 'r1', kind: 'user', key: 'b' },
      { runId: 'r1', kind: 'event', key: 'c' },
      { runId: 'r2', kind: 'user', key: 'a' },
    ]);
    const read = pendingReads(ledger);
    const found = await Promise.all([
      read({ runId: 'r1', epoch: 'e', kind: 'user', key: 'a' }),
      read({ runId: 'r1', epoch: 'e', kind: 'user', key: 'b' }),
      read({ runId: 'r1', epoch: 'e', kind: 'event', key: 'c' }),
      // Recorded already: no pending intent, though its key is pending under another kind.
      read({ runId: 'r1', epoch: 'e', kind: 'event', key: 'a' }),
      read({ runId: 'r2', epoch: 'e', kind: 'user', key: 'a' }),
    ]);
    expect(found.map(shown)).toEqual(['r1:user:a', 'r1:user:b', 'r1:event:c', undefined, 'r2:user:a']);
    expect(ledger.reads).toEqual([
      { runId: 'r1', filter: { kinds: ['user'], keys: ['a'], ahead: 64 } },
      { runId: 'r1', filter: { kinds: ['user', 'event'], keys: ['b', 'c', 'a'], ahead: 64 } },
      { runId: 'r2', filter: { kinds: ['user'], keys: ['a'], ahead: 64 } },
    ]);
  });

  it('hands the intents read ahead to the jobs of the same pass, once and while fresh', async () => {
    const pending = Array.from({ length: 200 }, (_, i): Pending => ({
      runId: 'r',
      kind: 'user',
      key: `k${i}`,
    }));
    const ledger = slowLedger(pending);
    let clock = 0;
    const read = pendingReads(ledger, () => clock);
    const job = (i: number, epoch = 'e') => ({ runId: 'r', epoch, kind: 'user' as const, key: `k${i}` });

    for (let i = 0; i <= 64; i += 1) expect(shown(await read(job(i)))).toBe(`r:user:k${i}`);
    // k0 read k1…k64 ahead: one query for 65 jobs.
    expect(ledger.reads).toHaveLength(1);

    // Read ahead once: the same job handed again reads the ledger.
    await read(job(64));
    expect(ledger.reads).toHaveLength(2);

    // Another pass (a resume) does not take what an earlier one read.
    await read(job(100, 'e2'));
    expect(ledger.reads).toHaveLength(3);
    // Nor does a job taken after the read-ahead went stale.
    clock += 3_000;
    await read(job(101, 'e2'));
    expect(ledger.reads).toHaveLength(4);
  });

  it('never reads check-ins ahead: their send marks are read fresh', async () => {
    const ledger = slowLedger([{ runId: 'r', kind: 'check_in', key: 'a' }]);
    await pendingReads(ledger)({ runId: 'r', epoch: 'e', kind: 'check_in', key: 'a' });
    expect(ledger.reads[0]?.filter?.ahead).toBe(0);
  });
});
