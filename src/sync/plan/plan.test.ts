import { describe, expect, it } from 'vitest';
import type { Intent, IntentKind } from '../../model/intent.js';
import { diffIntents, intentHashes } from './plan-intents.js';
import { deriveKey } from '../../platform/derive-key.js';
import { HASH_KEY_PURPOSE, hashIntent } from './params-hash.js';
import { planMirrorDeletes } from './mirror-deletes.js';
import { DeleteThresholdError } from './delete-threshold-error.js';
import type { KnownState } from './sync-plan.js';

const origin = (row: number): Intent['origin'] => ({ source: 'users.csv', row, line: row + 1 });

function user(key: string, last = 'Last', row = 1): Intent {
  return {
    kind: 'user',
    key,
    op: 'upsert',
    params: { client_id: key, 'user[first_name]': 'A', 'user[last_name]': last },
    origin: origin(row),
    dependsOn: [],
  };
}

function known(hashes: Record<string, string> = {}, ids: Record<string, number> = {}): KnownState {
  return {
    hashes: new Map<IntentKind, Map<string, string>>([['user', new Map(Object.entries(hashes))]]),
    ids: new Map<IntentKind, Map<string, number>>([['user', new Map(Object.entries(ids))]]),
  };
}

describe('intentHashes', () => {
  it("takes the mapping's hash of a row found synced only while its params are those it hashed", () => {
    const hashOf = intentHashes(undefined);
    const ann = user('ann');
    const real = hashIntent('upsert', ann.params);
    const found = { ...ann, knownHash: { params: ann.params, op: 'upsert' as const, hash: 'found' } };
    expect(hashOf(found)).toBe('found');
    // A stage that changes params makes a new object (an erased speaker, a plus-address).
    expect(hashOf({ ...found, params: { ...ann.params, 'user[last_name]': 'Other' } })).toBe(
      hashIntent('upsert', { ...ann.params, 'user[last_name]': 'Other' }),
    );
    // A merged person's other client_ids are in the hash; a removal is another hash.
    expect(hashOf({ ...found, aliases: ['ann-2'] })).toBe(
      hashIntent('upsert', ann.params, undefined, ['ann-2']),
    );
    expect(hashOf({ ...found, op: 'remove' })).toBe(hashIntent('remove', ann.params));
    expect(hashOf(ann)).toBe(real);
  });
});

describe('hashIntent', () => {
  it('ignores the order of params and changes with any value, name or the op', () => {
    const a = hashIntent('upsert', { x: '1', y: '2' });
    expect(hashIntent('upsert', { y: '2', x: '1' })).toBe(a);
    expect(hashIntent('upsert', { x: '1', y: '3' })).not.toBe(a);
    expect(hashIntent('remove', { x: '1', y: '2' })).not.toBe(a);
    // Boundaries between names and values cannot be shifted to collide.
    expect(hashIntent('upsert', { ab: 'c' })).not.toBe(hashIntent('upsert', { a: 'bc' }));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keys the hash of params with a secret: the same key matches, another key or none never does', () => {
    const pw = 'user[svc_auth_attributes][password]';
    const params = { 'user[first_name]': 'A', [pw]: 'hunter2' };
    const key = deriveKey('signing-key', HASH_KEY_PURPOSE);
    const keyed = hashIntent('upsert', params, key);
    expect(keyed).toMatch(/^k1:[0-9a-f]{8}:[0-9a-f]{64}$/);
    expect(hashIntent('upsert', params, deriveKey('signing-key', HASH_KEY_PURPOSE))).toBe(keyed);
    expect(hashIntent('upsert', { ...params, [pw]: 'hunter3' }, key)).not.toBe(keyed);
    expect(hashIntent('upsert', params, deriveKey('another-key', HASH_KEY_PURPOSE))).not.toBe(keyed);
    expect(hashIntent('upsert', params)).not.toBe(hashIntent('upsert', params));
    // Params without a secret hash as before, with or without a key: stored hashes still match.
    expect(hashIntent('upsert', { x: '1' }, key)).toBe(hashIntent('upsert', { x: '1' }));
  });
});

describe('diffIntents', () => {
  it('plans new → create, changed → update, same → unchanged, known id without hash → update', () => {
    const diff = diffIntents(
      [user('new'), user('same'), user('changed', 'Other'), user('idonly')],
      known({ same: hashIntent('upsert', user('same').params), changed: 'old-hash' }, { idonly: 7 }),
    );
    const actions = Object.fromEntries(
      [...diff.work, ...diff.unchanged].map((p) => [p.key, p.plannedAction]),
    );
    expect(actions).toEqual({ new: 'create', same: 'unchanged', changed: 'update', idonly: 'update' });
    expect(diff.unchanged.map((p) => p.key)).toEqual(['same']);
  });

  it('gives every planned intent the hash of its params, new keys included (computed when first read)', () => {
    const diff = diffIntents([user('new'), user('changed', 'Other')], known({ changed: 'old-hash' }));
    for (const planned of diff.work) {
      const expected = hashIntent('upsert', planned.params);
      expect(planned.hash).toBe(expected);
      expect(planned.hash).toBe(expected);
      expect({ ...planned }.hash).toBe(expected);
      expect((JSON.parse(JSON.stringify(planned)) as { hash: string }).hash).toBe(expected);
      expect(structuredClone(planned).hash).toBe(expected);
    }
  });

  it('keeps the first of two rows with one key and reports the second with both places', () => {
    const diff = diffIntents([user('dup', 'A', 1), user('dup', 'B', 5)], known());
    expect(diff.work).toHaveLength(1);
    expect(diff.work[0]?.params['user[last_name]']).toBe('A');
    expect(diff.duplicates[0]).toMatchObject({
      key: 'dup#row5',
      action: 'failed',
      errorCode: 'EVSYNC_DUPLICATE_KEY',
    });
    expect(diff.duplicates[0]?.message).toMatch(/users.csv row 1 \(line 2\) is the one synced/);
  });

  it('plans 20,000 intents in well under 2 s', () => {
    const intents = Array.from({ length: 20_000 }, (_, i) => user(`u${i}`, `L${i}`, i + 1));
    const hashes = Object.fromEntries(
      intents.slice(0, 19_800).map((i) => [i.key, hashIntent('upsert', i.params)]),
    );
    const started = performance.now();
    const diff = diffIntents(intents, known(hashes));
    const ms = performance.now() - started;
    expect(diff.unchanged).toHaveLength(19_800);
    expect(diff.work).toHaveLength(200);
    expect(ms).toBeLessThan(2_000);
  });
});

describe('planMirrorDeletes', () => {
  const seen = (keys: string[]): Map<IntentKind, Set<string>> => new Map([['user', new Set(keys)]]);
  const knownKeys = (keys: string[]) => () => Promise.resolve(keys);
  const ten = Array.from({ length: 10 }, (_, i) => `u${i}`);

  it('deletes what the ledger knows and the source no longer has, within the threshold', async () => {
    const mirror = await planMirrorDeletes({
      seen: seen(ten.slice(1)),
      knownKeys: knownKeys(ten),
      threshold: { percent: 10 },
      force: false,
    });
    expect(mirror.deletes.map((d) => [d.kind, d.key, d.plannedAction])).toEqual([['user', 'u0', 'delete']]);
    expect(mirror.counts).toEqual([{ kind: 'user', deletes: 1, known: 10, allowed: 1 }]);
  });

  it('aborts above the threshold with the counts, unless forced', async () => {
    const input = { seen: seen(ten.slice(3)), knownKeys: knownKeys(ten), threshold: { percent: 10 } };
    const error = await planMirrorDeletes({ ...input, force: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeleteThresholdError);
    expect((error as Error).message).toMatch(
      /delete 3 of 10 known users \(30.0%; the threshold allows 1; first: u0, u1, u2\).*10%.*--force/,
    );
    expect((error as DeleteThresholdError).code).toBe('EVSYNC_DELETE_THRESHOLD');
    const forced = await planMirrorDeletes({ ...input, force: true });
    expect(forced.deletes).toHaveLength(3);
  });

  it('never deletes kinds the run did not produce (an empty feed deletes nothing)', async () => {
    const mirror = await planMirrorDeletes({
      seen: new Map(),
      knownKeys: knownKeys(ten),
      threshold: { count: 0 },
      force: false,
    });
    expect(mirror.deletes).toEqual([]);
  });
});
