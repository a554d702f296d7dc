import { describe, expect, it } from 'vitest';
import { retriedNote } from './retried-already.js';

describe('the line about a run retried already', () => {
  it('is empty for a run never retried', () => {
    expect(retriedNote('R1', { retries: [], failed: 3, synced: 0 })).toBe('');
  });

  it('names the retry and says nothing is left when it synced every failed row', () => {
    expect(retriedNote('R1', { retries: ['R2'], failed: 1, synced: 1 })).toBe(
      'Run R1 was retried already by run R2, which synced all its 1 row that failed: nothing is left to send again.',
    );
  });

  it('says a second retry sends only the rows still failing', () => {
    const note = retriedNote('R1', { retries: ['R3', 'R2'], failed: 5, synced: 2 });
    expect(note).toContain('retried already by run R3 (and before it R2), which synced 2 of its 5 rows');
    expect(note).toContain(
      'another retry sends again only the 3 still failing; those synced are not sent twice',
    );
  });
});
