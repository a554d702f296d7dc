import { describe, expect, it } from 'vitest';
import type { Intent } from '../../model/intent.js';
import { lastOfEachKey, withoutRepeatedUsers } from './chunk-keys.js';

function intent(kind: Intent['kind'], key: string, row: number, source = 'a.csv'): Intent {
  return { kind, key, op: 'upsert', params: { client_id: key }, origin: { source, row }, dependsOn: [] };
}

/** Notes keys as a run's plan does, `planned` by earlier chunks. */
function firstTimeAfter(planned: string[]): (key: string) => boolean {
  const keys = new Set(planned);
  return (key) => keys.size < keys.add(key).size;
}

describe('withoutRepeatedUsers', () => {
  it('keeps the first user of a key; a repeat in the chunk or of an earlier chunk fails, named', () => {
    const chunk = [
      intent('user', 'ann', 1),
      intent('user', 'bob', 2),
      intent('user', 'ann', 1, 'b.csv'),
      intent('user', 'cid', 2, 'b.csv'),
      intent('user', 'bob', 3, 'b.csv'),
    ];
    const { kept, repeats } = withoutRepeatedUsers(chunk, firstTimeAfter(['cid']));
    expect(kept.map((one) => one.key)).toEqual(['ann', 'bob']);
    expect(repeats.map((row) => [row.key, row.action, row.errorCode])).toEqual([
      ['ann#row1', 'failed', 'EVSYNC_DUPLICATE_KEY'],
      ['cid#row2', 'failed', 'EVSYNC_DUPLICATE_KEY'],
      ['bob#row3', 'failed', 'EVSYNC_DUPLICATE_KEY'],
    ]);
    expect(repeats[0]!.message).toContain('a.csv row 1 is the one synced');
    expect(repeats[1]!.message).toContain('an earlier row is the one synced');
    expect(repeats[2]!.message).toContain('a.csv row 2 is the one synced');
  });

  it('leaves other kinds and a chunk without repeats as they are', () => {
    const chunk = [intent('user', 'ann', 1), intent('event', 'e1', 2), intent('event', 'e1', 3)];
    const { kept, repeats } = withoutRepeatedUsers(chunk, firstTimeAfter([]));
    expect(kept).toBe(chunk);
    expect(repeats).toEqual([]);
    // A later intent of a key of another kind still takes the earlier one's place.
    expect(lastOfEachKey(kept).map((one) => [one.key, one.origin.row])).toEqual([
      ['ann', 1],
      ['e1', 3],
    ]);
  });
});
