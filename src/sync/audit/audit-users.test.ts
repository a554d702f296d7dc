import { describe, expect, it } from 'vitest';
import type { Intent } from '../../model/intent.js';
import type { PlatformEvent, PlatformUser } from '../../platform/response-schemas.js';
import { PlatformHttpError } from '../../platform/platform-error.js';
import { auditUsers } from './audit-users.js';
import type { AuditLedger, AuditPlatform, DriftEntry } from './drift.js';
import { SourceIndex } from './source-index.js';

function user(key: string, first: string, aliases?: string[]): Intent {
  return {
    kind: 'user',
    key,
    op: 'upsert',
    params: { 'user[first_name]': first, 'user[last_name]': 'X' },
    origin: { source: 'users.csv', row: 1 },
    dependsOn: [],
    ...(aliases ? { aliases } : {}),
  };
}

/**
 * A platform that answers pages of `users` and remembers the pages asked; `between` are
 * users no page shows (another client moved them while the audit paged) that a read by id
 * finds. Any other id is a 404.
 */
function platform(
  users: PlatformUser[],
  between: PlatformUser[] = [],
): AuditPlatform & { limits: Array<number | undefined>; reads: number[] } {
  const limits: Array<number | undefined> = [];
  const reads: number[] = [];
  const gone = (path: string): PlatformHttpError => new PlatformHttpError({ method: 'GET', path }, 404);
  return {
    vendor: 'svc',
    limits,
    reads,
    users: {
      async *list(options) {
        limits.push(options?.limit);
        await Promise.resolve();
        yield* users;
      },
      get: (id) => {
        reads.push(id);
        const found = [...users, ...between].find((user) => user.id === id);
        return found ? Promise.resolve(found) : Promise.reject(gone(`/user/member/${id}`));
      },
    },
    events: {
      // eslint-disable-next-line require-yield
      async *list(): AsyncGenerator<PlatformEvent> {
        await Promise.resolve();
      },
      get: (id) => Promise.reject(gone(`/event/member/${id}`)),
    },
  };
}

function ledger(
  ids: Record<string, number>,
  synced: string[],
  sent: Record<string, Record<string, string>> = {},
  /** What was last sent under keys a mirror delete removed since. */
  removed: Record<string, Record<string, string>> = {},
): AuditLedger {
  return {
    conference: undefined,
    erasure: () =>
      ({ activeHashes: () => Promise.resolve(new Set<string>()) }) as unknown as ReturnType<
        AuditLedger['erasure']
      >,
    loadIdMap: () => Promise.resolve(new Map(Object.entries(ids))),
    hashesOf: (_kind, keys) =>
      Promise.resolve(new Map(keys.filter((key) => synced.includes(key)).map((key) => [key, 'h']))),
    syncedParams: (_kind, keys) =>
      Promise.resolve(new Map(keys.filter((key) => sent[key] !== undefined).map((key) => [key, sent[key]!]))),
    removedKeysLastSent: (_kind, keys) =>
      Promise.resolve(
        new Map(keys.filter((key) => removed[key] !== undefined).map((key) => [key, removed[key]!])),
      ),
  };
}

const EMAIL = 'user[svc_auth_attributes][email]';

function person(key: string, first: string, last: string, email: string): Intent {
  return {
    ...user(key, first),
    params: { 'user[first_name]': first, 'user[last_name]': last, [EMAIL]: email },
  };
}

describe('auditUsers', () => {
  it('matches by client_ids, aliases and the id map; tells missing from never synced', async () => {
    const index = new SourceIndex();
    index.add(user('a', 'Ann', ['eb-1']));
    index.add(user('b', 'Bob'));
    index.add(user('c', 'Cy'));
    index.add(user('d', 'Dee'));
    index.add(user('new', 'Neo'));
    const drift: DriftEntry[] = [];
    const read = platform([
      // Known by a merged user's other client_id only.
      { id: 1, client_ids: ['eb-1'], first_name: 'Ann', last_name: 'X' },
      // Its client_id lost on the platform: the id map still names it.
      { id: 2, client_ids: [], first_name: 'Robert', last_name: 'X' },
      // Another job of this conference synced it: not this job's extra.
      { id: 7, client_ids: ['other-job'], first_name: 'O', last_name: 'J' },
      { id: 8, client_ids: ['desk-1'], first_name: 'Walk', last_name: 'In' },
    ]);
    const { audit, seen } = await auditUsers(
      {
        ledger: ledger({ a: 1, 'eb-1': 1, b: 2, c: 3, d: 4, 'other-job': 7 }, ['a', 'b', 'c', 'd']),
        platform: read,
        sink: (entry) => drift.push(entry),
      },
      index,
    );
    expect(read.limits).toEqual([100]);
    expect(audit).toEqual({
      in_sync: 1,
      missing: 2,
      changed: 1,
      another_person: 0,
      extra: 1,
      erased: 0,
      not_synced: 1,
      not_auditable: 0,
    });
    expect(drift.map(({ key, type, fields }) => `${key} ${type} ${fields.join(' ')}`)).toEqual([
      'b changed user[first_name]',
      'desk-1 extra ',
      'c missing ',
      'd missing ',
    ]);
    expect(seen.get('eb-1')).toBe(1);
    expect(seen.get('a')).toBe(1);
  });

  it('reads a user no page showed again by id: present all along, compared, not missing (issue #41 item 10)', async () => {
    const index = new SourceIndex();
    index.add(user('a', 'Ann'));
    index.add(user('b', 'Bob'));
    index.add(user('c', 'Cy'));
    const drift: DriftEntry[] = [];
    const read = platform(
      [{ id: 1, client_ids: ['a'], first_name: 'Ann', last_name: 'X' }],
      // Between two pages while another client removed and added users.
      [{ id: 2, client_ids: ['b'], first_name: 'Bobby', last_name: 'X' }],
    );
    const { audit, seen } = await auditUsers(
      {
        ledger: ledger({ a: 1, b: 2, c: 3 }, ['a', 'b', 'c']),
        platform: read,
        sink: (entry) => drift.push(entry),
      },
      index,
    );
    expect(read.reads).toEqual([2, 3]);
    expect(audit).toMatchObject({ in_sync: 1, changed: 1, missing: 1 });
    expect(drift.map(({ key, type }) => `${key} ${type}`)).toEqual(['b changed', 'c missing']);
    expect(seen.get('b')).toBe(2);
  });
  it('tells another person under a key from a hand edit: a new name and a new e-mail against the platform', async () => {
    const index = new SourceIndex(EMAIL);
    // A ticket handed on: Amy's account, Zed in the source.
    index.add(person('q', 'Zed', 'Zimmer', 'zed@example.org'));
    // A typo fixed by hand on the platform, the source's e-mail the same.
    index.add(person('b', 'Bob', 'Baker', 'bob@example.org'));
    // A new e-mail under an agreeing name: the same person.
    index.add(person('c', 'Cy', 'Clark', 'cy.clark@example.org'));
    // Renamed by hand on the platform, and a new e-mail in the source under the name last synced.
    index.add(person('d', 'Dee', 'Doe', 'dee.doe@example.org'));
    const drift: DriftEntry[] = [];
    const { audit } = await auditUsers(
      {
        ledger: ledger({ q: 1, b: 2, c: 3, d: 4 }, ['q', 'b', 'c', 'd'], {
          q: { 'user[first_name]': 'Amy', 'user[last_name]': 'Able', [EMAIL]: 'amy@example.org' },
          b: { 'user[first_name]': 'Bob', 'user[last_name]': 'Baker', [EMAIL]: 'bob@example.org' },
          c: { 'user[first_name]': 'Cy', 'user[last_name]': 'Clark', [EMAIL]: 'cy@example.org' },
          d: { 'user[first_name]': 'Dee', 'user[last_name]': 'Doe', [EMAIL]: 'dee@example.org' },
        }),
        platform: platform([
          { id: 1, client_ids: ['q'], first_name: 'Amy', last_name: 'Able' },
          { id: 2, client_ids: ['b'], first_name: 'Robert', last_name: 'Bakker' },
          { id: 3, client_ids: ['c'], first_name: 'Cy', last_name: 'Clark' },
          { id: 4, client_ids: ['d'], first_name: 'Deirdre', last_name: 'Dunn' },
        ]),
        sink: (entry) => drift.push(entry),
      },
      index,
    );
    expect(audit).toMatchObject({ in_sync: 1, changed: 2, another_person: 1 });
    expect(drift.map(({ key, type }) => `${key} ${type}`)).toEqual([
      'q another_person',
      'b changed',
      'd changed',
    ]);
    expect(drift[0]!.detail).toContain(
      'the platform\'s account is "Amy Able" <amy@example.org> (the e-mail last synced), and the source now makes it "Zed Zimmer" <zed@example.org>',
    );
    expect(drift[0]!.detail).toContain('Not repaired');
  });

  it('compares a key a mirror delete removed with the person last sent under it, not only the synced ones', async () => {
    const index = new SourceIndex(EMAIL);
    // Alice's ticket left the export (deleted), then went to Bob under the same reference; a
    // create under it re-attached Alice's account, which keeps the client_id.
    index.add(person('tito-1', 'Bob', 'Byrne', 'bob@example.org'));
    // Cy's removed key came back with Cy, the platform's name fixed by hand: drift, repaired.
    index.add(person('tito-2', 'Cy', 'Clark', 'cy@example.org'));
    const drift: DriftEntry[] = [];
    const { audit } = await auditUsers(
      {
        ledger: ledger(
          {},
          [],
          {},
          {
            'tito-1': {
              'user[first_name]': 'Alice',
              'user[last_name]': 'Ames',
              [EMAIL]: 'alice@example.org',
            },
            'tito-2': { 'user[first_name]': 'Cy', 'user[last_name]': 'Clark', [EMAIL]: 'cy@example.org' },
          },
        ),
        platform: platform([
          { id: 1, client_ids: ['tito-1'], first_name: 'Alice', last_name: 'Ames' },
          { id: 2, client_ids: ['tito-2'], first_name: 'Cyrus', last_name: 'Clerk' },
        ]),
        sink: (entry) => drift.push(entry),
      },
      index,
    );
    expect(audit).toMatchObject({ changed: 1, another_person: 1 });
    expect(drift.map(({ key, type }) => `${key} ${type}`)).toEqual([
      'tito-1 another_person',
      'tito-2 changed',
    ]);
    expect(drift[0]!.detail).toContain(
      'the platform\'s account is "Alice Ames" <alice@example.org> (the e-mail last synced), and the source now makes it "Bob Byrne" <bob@example.org>',
    );
    expect(drift[0]!.detail).toContain('(EVSYNC_KEY_OF_REMOVED_PERSON)');
  });
});
