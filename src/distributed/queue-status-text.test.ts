import { describe, expect, it } from 'vitest';
import { describeWorker } from './queue-status-text.js';

describe('describeWorker', () => {
  it('says a worker that took nothing yet has taken no run', () => {
    expect(describeWorker({ name: 'h:1', serves: [], refuses: {} })).toBe('h:1 (no run taken yet)');
  });

  it('says a worker whose key left its environment left that lane, not that it took no run', () => {
    const text = describeWorker({ name: 'h:2', serves: ['a.example'], left: ['b.example'], refuses: {} });
    expect(text).toBe(
      'h:2 (serves a.example; left b.example: the key is no longer in its environment, so it takes none of their jobs)',
    );
    expect(describeWorker({ name: 'h:3', serves: [], left: ['b.example'], refuses: {} })).not.toContain(
      'no run taken yet',
    );
  });
});
