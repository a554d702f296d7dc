import { describe, expect, it } from 'vitest';
import type { Intent } from '../../model/intent.js';
import { LaterStepRows } from './later-step-rows.js';

const event = (key: string, source: string, row: number): Intent => ({
  kind: 'event',
  key,
  op: 'upsert',
  params: { client_id: key },
  origin: { source, row },
  dependsOn: [],
});

describe('LaterStepRows', () => {
  it('keeps the later row of a key in the earlier one’s place, and gives the earlier a result', () => {
    const repeats = new LaterStepRows();
    const { unique, replaced } = repeats.lastOfEachKey([
      event('E-1', 'a.csv', 1),
      event('E-2', 'a.csv', 2),
      event('E-1', 'b.csv', 1),
    ]);
    expect(unique.map((intent) => `${intent.key} ${intent.origin.source}`)).toEqual([
      'E-1 b.csv',
      'E-2 a.csv',
    ]);
    expect(replaced).toMatchObject([
      {
        kind: 'event',
        key: 'E-1#row1',
        action: 'skipped',
        errorCode: 'EVSYNC_DUPLICATE_ROW',
        origin: { source: 'a.csv', row: 1 },
        keptKeys: [{ kind: 'event', key: 'E-1' }],
      },
    ]);
    expect(replaced[0]?.message).toContain('comes again in b.csv row 1');
    // Another chunk's repeat at the same row number gets a key of its own.
    const later = repeats.lastOfEachKey([event('E-1', 'b.csv', 1), event('E-1', 'c.csv', 4)]);
    expect(later.replaced.map((row) => row.key)).toEqual(['E-1#row1.2']);
  });
});
