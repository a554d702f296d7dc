import { describe, expect, it } from 'vitest';
import type { Intent } from '../../model/intent.js';
import { UsersApart } from './users-apart.js';

function intent(kind: Intent['kind'], key: string, row: number, source: string): Intent {
  return { kind, key, op: 'upsert', params: { client_id: key }, origin: { source, row }, dependsOn: [] };
}

const read = (...intents: Intent[]): { intents: Intent[]; rowResults: [] } => ({ intents, rowResults: [] });

describe('UsersApart', () => {
  it("keeps a user key's first step; a later step's row of it fails whole, named, each under its own key", () => {
    const apart = new UsersApart([{ name: 'tickets' }, {}, {}], new Set());
    expect(apart.filter(read(intent('user', 'ann', 2, 'a.csv')), 0).intents).toHaveLength(1);
    // Step 2's row 2 repeats ann: its user and its schedule go, its other row stays.
    const second = apart.filter(
      read(
        intent('user', 'ann', 2, 'b.csv'),
        intent('schedule', 'ann', 2, 'b.csv'),
        intent('user', 'bob', 3, 'b.csv'),
      ),
      1,
    );
    expect(second.intents.map((one) => one.key)).toEqual(['bob']);
    expect(second.rowResults).toEqual([
      expect.objectContaining({
        key: 'ann#row2',
        action: 'failed',
        errorCode: 'EVSYNC_DUPLICATE_KEY',
        keptKeys: [{ kind: 'user', key: 'ann' }],
        message: expect.stringContaining('step "tickets" has it before') as unknown,
      }),
    ]);
    // A third step repeating ann at the same row has a result of its own.
    const third = apart.filter(read(intent('user', 'ann', 2, 'c.csv')), 2);
    expect(third.rowResults.map((row) => row.key)).toEqual(['ann#row2.2']);
    expect(third.rowResults[0]!.message).toContain('step "tickets" has it before');
  });

  it('leaves other kinds, and a row without a repeated user, as they are', () => {
    const apart = new UsersApart([{}, {}], new Set());
    const row = read(intent('event', 'e1', 1, 'a.csv'));
    expect(apart.filter(row, 0)).toBe(row);
    expect(apart.filter(read(intent('event', 'e1', 1, 'b.csv')), 1).rowResults).toEqual([]);
  });
});
