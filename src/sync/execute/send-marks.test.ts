import { describe, expect, it } from 'vitest';
import { createSendMarker } from './send-marks.js';

type Marks = ReadonlyArray<{ kind: string; key: string }>;

function slowLedger(fail?: (marks: Marks) => boolean) {
  const writes: string[][] = [];
  return {
    writes,
    markSendStarted: async (_runId: string, marks: Marks): Promise<void> => {
      writes.push(marks.map((m) => m.key));
      await new Promise((r) => setTimeout(r, 10));
      if (fail?.(marks)) throw new Error('ledger down');
    },
  };
}

describe('send marker', () => {
  it('resolves each mark only after its write; marks arriving meanwhile share the next write', async () => {
    const ledger = slowLedger();
    const mark = createSendMarker(ledger, 'r1');
    const done: string[] = [];
    const all = ['a', 'b', 'c', 'd'].map((key) => mark({ kind: 'check_in', key }).then(() => done.push(key)));
    expect(ledger.writes).toEqual([['a']]);
    await all[0];
    expect(done).toEqual(['a']);
    await Promise.all(all);
    expect(ledger.writes).toEqual([['a'], ['b', 'c', 'd']]);
    await mark({ kind: 'check_in', key: 'e' });
    expect(ledger.writes).toHaveLength(3);
  });

  it('a failed write rejects the marks it carried, and later marks are written again', async () => {
    const ledger = slowLedger((marks) => marks.some((m) => m.key === 'bad'));
    const mark = createSendMarker(ledger, 'r1');
    await expect(mark({ kind: 'check_in', key: 'bad' })).rejects.toThrow('ledger down');
    await expect(mark({ kind: 'check_in', key: 'good' })).resolves.toBeUndefined();
    expect(ledger.writes).toEqual([['bad'], ['good']]);
  });
});
