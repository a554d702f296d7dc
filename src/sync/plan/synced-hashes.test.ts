import { describe, expect, it } from 'vitest';
import type { IntentKind } from '../../model/intent.js';
import { hashIntent } from './params-hash.js';
import { LOOK_UP_CHUNKS, SyncedHashes, tailWord } from './synced-hashes.js';

const HASH = '272c2b775d03eb22c3f741252c344b68100a74dcbd5ab0187947cefc27e7e79a';

describe('tailWord', () => {
  it('reads the last 16 hex digits as two unsigned 32-bit words', () => {
    expect(tailWord(HASH, 0)).toBe(0x7947cefc);
    expect(tailWord(HASH, 1)).toBe(0x27e7e79a);
    // A top bit set stays positive, as a Uint32Array holds it.
    expect(tailWord('ffffffff00000000', 0)).toBe(0xffffffff);
    expect(tailWord('ffffffff00000000', 1)).toBe(0);
  });

  it('is -1 for a tail that is not lower-case hex, or too short', () => {
    // Each word alone: a hash matches only when both are hex (the uuid's last 8 characters are).
    expect(tailWord('unkeyed:0b1e4cd3-3a52-4f8a-9e1c-5c2d0f3a7b6d', 0)).toBe(-1);
    expect(tailWord(HASH.toUpperCase(), 0)).toBe(-1);
    expect(tailWord('[erased]', 0)).toBe(-1);
    expect(tailWord('abcdef0123', 0)).toBe(-1);
    expect(tailWord('abcdef0123', 1)).toBe(-1);
  });
});

describe('SyncedHashes', () => {
  /** A ledger of synced hashes, counting the keys each `hashesOf` asks. */
  function ledgerOf(synced: Record<string, string>): {
    asked: string[][];
    ledger: ConstructorParameters<typeof SyncedHashes>[0];
  } {
    const asked: string[][] = [];
    return {
      asked,
      ledger: {
        // eslint-disable-next-line @typescript-eslint/require-await -- the ledger's shape
        hashesOf: async (_kind: IntentKind, keys: readonly string[]) => {
          asked.push([...keys]);
          return new Map(keys.flatMap((key) => (synced[key] ? [[key, synced[key]] as const] : [])));
        },
        // eslint-disable-next-line @typescript-eslint/require-await -- the ledger's shape
        hashTails: async function* () {
          const entries = Object.entries(synced).sort(([a], [b]) => a.localeCompare(b));
          // As the ledger writes a tail that is no hex: 16 dashes.
          const tail = (hash: string): string =>
            /^[0-9a-f]{16}$/.test(hash.slice(-16)) ? hash.slice(-16) : '-'.repeat(16);
          yield { keys: entries.map(([key]) => key), tails: entries.map(([, hash]) => tail(hash)).join('') };
        },
      },
    };
  }

  it('answers matching keys from the tails, and asks the ledger only of the rest', async () => {
    const other = `${HASH.slice(0, -1)}b`;
    const { asked, ledger } = ledgerOf({ a: HASH, b: HASH, c: other, d: 'unkeyed:x' });
    const synced = new SyncedHashes(ledger);
    const intents = [{ key: 'a' }, { key: 'b' }, { key: 'c' }, { key: 'd' }, { key: 'new' }];
    const hashed: string[] = [];
    const hashOf = (intent: { key: string }): string => {
      hashed.push(intent.key);
      return HASH;
    };
    for (let chunk = 1; chunk <= LOOK_UP_CHUNKS; chunk++)
      await synced.of('user', intents, hashOf, () => false);
    asked.length = 0;
    hashed.length = 0;
    const found = await synced.of('user', intents, hashOf, (key) => key === 'b');
    // `b` was planned before: asked. `c` changed, `d` is no hex, `new` has no synced hash.
    expect(asked).toEqual([['b', 'c', 'd', 'new']]);
    // A key without a synced tail is never hashed.
    expect(hashed).toEqual(['a', 'c']);
    expect(found).toEqual(
      new Map([
        ['a', HASH],
        ['b', HASH],
        ['c', other],
        ['d', 'unkeyed:x'],
      ]),
    );
  });

  it('tells the mapping a key synced with these params once the index is published, hashing only known keys', async () => {
    const { ledger } = ledgerOf({ a: HASH, c: `${HASH.slice(0, -1)}b` });
    const synced = new SyncedHashes(ledger);
    const hashed: string[] = [];
    const hash = (key: string) => (): string => {
      hashed.push(key);
      return HASH;
    };
    // Before the plan reads the index, nothing is known: each row is checked as before.
    expect(synced.hashIfSynced('user', 'a', hash('a'))).toBeUndefined();
    for (let chunk = 1; chunk <= LOOK_UP_CHUNKS + 1; chunk++)
      await synced.of(
        'user',
        [],
        () => HASH,
        () => false,
      );
    // Read, but not published by the reader yet: the rows it maps meanwhile are checked.
    expect(synced.hashIfSynced('user', 'a', hash('a'))).toBeUndefined();
    await synced.publish();
    expect(synced.hashIfSynced('user', 'a', hash('a'))).toBe(HASH);
    // Another hash synced, a key never synced, a kind not read.
    expect(synced.hashIfSynced('user', 'c', hash('c'))).toBeUndefined();
    expect(synced.hashIfSynced('user', 'new', hash('new'))).toBeUndefined();
    expect(synced.hashIfSynced('event', 'a', hash('event a'))).toBeUndefined();
    expect(hashed).toEqual(['a', 'c']);
  });

  it('gives the mapping the hash of params synced as they are, and nothing in a full run', async () => {
    const params = { client_id: 'a', 'user[first_name]': 'Ann' };
    const { ledger } = ledgerOf({ a: hashIntent('upsert', params) });
    const synced = new SyncedHashes(ledger);
    // The read starts with the chunk that reaches LOOK_UP_CHUNKS; the reader waits for it.
    for (let chunk = 1; chunk <= LOOK_UP_CHUNKS; chunk++)
      await synced.of(
        'user',
        [],
        () => HASH,
        () => false,
      );
    await synced.publish();
    expect(synced.forMapping(undefined, false)('user', 'a', 'upsert', params)).toBe(
      hashIntent('upsert', params),
    );
    expect(synced.forMapping(undefined, false)('user', 'a', 'remove', params)).toBeUndefined();
    expect(synced.forMapping(undefined, true)('user', 'a', 'upsert', params)).toBeUndefined();
  });
});
