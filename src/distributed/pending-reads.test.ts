import { describe, expect, it } from 'vitest';
import type { PendingFilter, PlannedIntentRecord } from '../model/planned-intent.js';
import { pendingReads } from './pending-reads.js';

function slowLedger(pending: ReadonlyArray<{ runId: string; kind: 'user' | 'event'; key: string }>) {
  const reads: Array<{ runId: string; filter: PendingFilter | undefined }> = [];
  return {
    reads,
    pendingIntents: async (runId: string, filter?: PendingFilter): Promise<PlannedIntentRecord[]> => {
      reads.push({ runId, filter });
      await new Promise((r) => setTimeout(r, 10));
      return pending
        .filter((p) => p.runId === runId && filter?.kinds?.includes(p.kind) && filter.keys?.includes(p.key))
        .map((p) => ({ ...p }) as unknown as PlannedIntentRecord);
    },
  };
}

describe('pending reads', () => {
  it('reads the first job alone, and jobs taken meanwhile in one query per run', async () => {
    const ledger = slowLedger([
      { runId: 'r1', kind: 'user', key: 'a' },
      { runId: 'r1', kind: 'user', key: 'b' },
      { runId: 'r1', kind: 'event', key: 'c' },
      { runId: 'r2', kind: 'user', key: 'a' },
    ]);
    const read = pendingReads(ledger);
    const found = await Promise.all([
      read({ runId: 'r1', kind: 'user', key: 'a' }),
      read({ runId: 'r1', kind: 'user', key: 'b' }),
      read({ runId: 'r1', kind: 'event', key: 'c' }),
      // Recorded already: no pending intent, though its key is pending under another kind.
      read({ runId: 'r1', kind: 'event', key: 'a' }),
      read({ runId: 'r2', kind: 'user', key: 'a' }),
    ]);
    expect(found.map((record) => record && `${record.runId}:${record.kind}:${record.key}`)).toEqual([
      'r1:user:a',
      'r1:user:b',
      'r1:event:c',
      undefined,
      'r2:user:a',
    ]);
    expect(ledger.reads).toEqual([
      { runId: 'r1', filter: { kinds: ['user'], keys: ['a'] } },
      { runId: 'r1', filter: { kinds: ['user', 'event'], keys: ['b', 'c', 'a'] } },
      { runId: 'r2', filter: { kinds: ['user'], keys: ['a'] } },
    ]);
  });
});
