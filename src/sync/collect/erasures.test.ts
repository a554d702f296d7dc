import { describe, expect, it } from 'vitest';
import { erasureHash } from '../../model/erasure.js';
import type { Intent } from '../../model/intent.js';
import type { Ledger } from '../../ledger/ledger.js';
import { Erasures } from './erasures.js';

const KEY = Buffer.alloc(32, 7);
const origin = { source: 'people.csv', row: 1, line: 2 };

function ledgerWith(hashes: string[]): Pick<Ledger, 'erasure' | 'conference'> {
  return {
    conference: undefined,
    erasure: () =>
      ({
        activeHashes: () => Promise.resolve(new Set(hashes)),
        key: () => Promise.resolve(KEY),
      }) as unknown as ReturnType<Ledger['erasure']>,
  };
}

const user = (key: string, email: string): Intent => ({
  kind: 'user',
  key,
  op: 'upsert',
  params: { client_id: key, 'user[svc_auth_attributes][email]': email, 'user[first_name]': 'Ada' },
  origin,
  dependsOn: [],
});
const speaker = (userKey: string): Intent => ({
  kind: 'speaker',
  key: `ses-1/${userKey}`,
  op: 'upsert',
  params: { client_id: 'ses-1', 'speaker[user_client_id]': userKey },
  origin,
  dependsOn: [
    { kind: 'user', clientId: userKey },
    { kind: 'event', clientId: 'ses-1' },
  ],
});

describe('Erasures', () => {
  it('passes every row when the conference has no tombstone', async () => {
    const erasures = await Erasures.load(ledgerWith([]), 'svc');
    const row = { intents: [user('a-1', 'ada@example.org')], rowResults: [] };
    expect(erasures.active).toBe(false);
    expect(erasures.filter(row)).toBe(row);
  });

  it('suppresses a user by e-mail in any case, and the links naming them, keeping nothing of them', async () => {
    const hash = erasureHash(KEY, { kind: 'email', value: 'ada@example.org' })!;
    const erasures = await Erasures.load(ledgerWith([hash]), 'svc');
    const row = erasures.filter({
      intents: [user('a-1', ' ADA@example.org'), user('b-2', 'bob@example.org')],
      rowResults: [],
    });
    expect(row.intents.map((intent) => intent.key)).toEqual(['b-2']);
    expect(row.rowResults).toHaveLength(1);
    const [suppressed] = row.rowResults;
    expect(suppressed).toMatchObject({ kind: 'user', action: 'skipped', errorCode: 'EVSYNC_ERASED' });
    expect(suppressed!.key).toMatch(/^erased:[0-9a-f]{16}$/);
    expect(JSON.stringify(suppressed)).not.toMatch(/a-1|ada@|Ada/i);
    // A link of that user in a later row: suppressed, though the tombstone holds no client_id.
    const links = erasures.filter({ intents: [speaker('a-1'), speaker('b-2')], rowResults: [] });
    expect(links.intents.map((intent) => intent.key)).toEqual(['ses-1/b-2']);
    expect(links.rowResults.map((result) => result.errorCode)).toEqual(['EVSYNC_ERASED']);
  });

  it('suppresses a merged user by any of their client_ids, and a failed row of theirs', async () => {
    const hash = erasureHash(KEY, { kind: 'client_id', value: 'cfp-9' })!;
    const erasures = await Erasures.load(ledgerWith([hash]), 'svc');
    const merged = { ...user('a-9', 'zoe@example.org'), aliases: ['cfp-9'] };
    expect(erasures.filter({ intents: [merged], rowResults: [] }).intents).toEqual([]);
    const failed = erasures.filter({
      intents: [],
      rowResults: [
        {
          kind: 'user',
          key: 'cfp-9',
          action: 'failed',
          origin,
          errorCode: 'INVALID_EMAIL',
          message: 'row 1: "zoe@" is not an e-mail address',
        },
      ],
    });
    expect(failed.rowResults[0]).toMatchObject({ action: 'skipped', errorCode: 'EVSYNC_ERASED' });
    expect(failed.rowResults[0]!.message).not.toContain('zoe');
  });

  it('sends an event without the erased among its own speakers, the others numbered again', async () => {
    const hash = erasureHash(KEY, { kind: 'client_id', value: 'a-1' })!;
    const erasures = await Erasures.load(ledgerWith([hash]), 'svc');
    const event: Intent = {
      kind: 'event',
      key: 'ses-1',
      op: 'upsert',
      params: {
        client_id: 'ses-1',
        'event[name]': 'Keynote',
        'event[speakers_attributes][1][user_client_id]': 'a-1',
        'event[speakers_attributes][1][type_name]': 'speaker',
        'event[speakers_attributes][0][user_client_id]': 'c-3',
        'event[speakers_attributes][2][user_client_id]': 'b-2',
        'event[speakers_attributes][2][type_name]': 'moderator',
      },
      origin,
      dependsOn: ['a-1', 'c-3', 'b-2'].map((clientId) => ({ kind: 'user' as const, clientId })),
    };
    const [sent] = erasures.filter({ intents: [event], rowResults: [] }).intents;
    expect(sent!.params).toEqual({
      client_id: 'ses-1',
      'event[name]': 'Keynote',
      'event[speakers_attributes][0][user_client_id]': 'c-3',
      'event[speakers_attributes][1][user_client_id]': 'b-2',
      'event[speakers_attributes][1][type_name]': 'moderator',
    });
    expect(sent!.dependsOn.map((parent) => parent.clientId)).toEqual(['c-3', 'b-2']);
    expect(sent!.warnings).toEqual([
      '1 of its speakers was left out: erased in this conference (evsync forget)',
    ]);
    // An event naming no erased person is the same intent.
    const other = { ...event, params: { client_id: 'ses-2' }, dependsOn: [] };
    expect(erasures.filter({ intents: [other], rowResults: [] }).intents[0]).toBe(other);
  });
});
