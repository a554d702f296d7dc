import { describe, expect, it } from 'vitest';
import { intentsDone } from './queue-status.js';

describe('intentsDone', () => {
  it('counts the planned intents with a result, not the unchanged rows nor the rows that failed the mapping', async () => {
    const ledger = {
      countPending: () =>
        Promise.resolve([{ kind: 'user' as const, plannedAction: 'create' as const, count: 253 }]),
      // 600 unchanged and 40 invalid rows have results too: they were counted, "690 of 300".
      resultCounts: () => Promise.resolve({ user: { unchanged: 600, created: 47, failed: 40 } }),
    };
    expect(await intentsDone(ledger, { id: 'r1', options: { planned: 300 } })).toEqual({
      done: 47,
      planned: 300,
    });
    // Still planning: the results sent so far.
    expect(await intentsDone(ledger, { id: 'r1', options: {} })).toEqual({ done: 87, planned: undefined });
  });
});
