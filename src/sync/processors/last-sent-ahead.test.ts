import { describe, expect, it } from 'vitest';
import type { FlatParams } from '../../model/params.js';
import type { PlannedAction, PlannedIntent } from '../../model/planned-intent.js';
import { LastSentAhead } from './last-sent-ahead.js';

/** A ledger's synced params (and those of keys a run removed) that counts what it is asked. */
function fakeLedger(synced: Record<string, FlatParams>, removed: Record<string, FlatParams> = {}) {
  const asked: string[][] = [];
  const askedAccounts: string[][] = [];
  const askedRemoved: string[][] = [];
  const ledger = {
    asked,
    askedAccounts,
    askedRemoved,
    failing: false,
    async removedKeysLastSent(_kind: 'user', keys: readonly string[]): Promise<Map<string, FlatParams>> {
      askedRemoved.push([...keys]);
      await Promise.resolve();
      return new Map(keys.flatMap((key) => (removed[key] ? [[key, removed[key]] as const] : [])));
    },
    // The id map gives none of these keys another client_id.
    accountsLastSent(_kind: 'user', keys: readonly string[]): Promise<Map<string, FlatParams>> {
      askedAccounts.push([...keys]);
      return Promise.resolve(new Map<string, FlatParams>());
    },
    async syncedParams(_kind: 'user', keys: readonly string[]): Promise<Map<string, FlatParams>> {
      asked.push([...keys]);
      await Promise.resolve();
      if (ledger.failing) throw new Error('the ledger is gone');
      return new Map(keys.flatMap((key) => (synced[key] ? [[key, synced[key]] as const] : [])));
    },
  };
  return ledger;
}

function user(key: string, plannedAction: PlannedAction, aliases?: string[]): PlannedIntent {
  return {
    kind: 'user',
    key,
    op: 'upsert',
    plannedAction,
    params: {},
    origin: null,
    dependsOn: [],
    hash: 'h',
    ...(aliases ? { aliases } : {}),
  };
}

const ADA = { first_name: 'Ada', email: 'ada@example.org' };
const BOB = { first_name: 'Bob', email: 'bob@example.org' };

describe('LastSentAhead', () => {
  it("reads a chunk's user updates and their aliases in one statement", async () => {
    const ledger = fakeLedger({ a: ADA, b: BOB });
    const ahead = new LastSentAhead(ledger);
    ahead.readAhead([user('a', 'update', ['b']), user('new', 'create'), user('c', 'update')]);
    expect(ledger.asked).toEqual([['a', 'b', 'c']]);
    expect(ledger.askedRemoved).toEqual([['new']]);
    expect(await ahead.lastSent('a')).toEqual(ADA);
    // The key with nothing synced of its own, under its account's other keys: one statement.
    expect(ledger.askedAccounts).toEqual([['c']]);
    expect(await ahead.lastSent('b')).toEqual(BOB);
    expect(await ahead.lastSent('c')).toBeUndefined();
    expect(ledger.asked).toHaveLength(1);
  });

  it("reads a chunk's user creates under keys a run removed in one statement", async () => {
    const ledger = fakeLedger({}, { gone: ADA });
    const ahead = new LastSentAhead(ledger);
    ahead.readAhead([user('gone', 'create'), user('new', 'create'), user('a', 'update')]);
    expect(ledger.askedRemoved).toEqual([['gone', 'new']]);
    expect(await ahead.lastSentBeforeRemoval('gone')).toEqual(ADA);
    expect(await ahead.lastSentBeforeRemoval('new')).toBeUndefined();
    expect(ledger.askedRemoved).toHaveLength(1);
    // Asked again (a 203 names who holds the key): read now.
    expect(await ahead.lastSentBeforeRemoval('gone')).toEqual(ADA);
    expect(ledger.askedRemoved).toEqual([['gone', 'new'], ['gone']]);
  });

  it('hands a value read ahead out once, then reads the ledger when asked', async () => {
    const ledger = fakeLedger({ a: ADA });
    const ahead = new LastSentAhead(ledger);
    ahead.readAhead([user('a', 'update')]);
    expect(await ahead.lastSent('a')).toEqual(ADA);
    expect(await ahead.lastSent('a')).toEqual(ADA);
    expect(ledger.asked).toEqual([['a'], ['a']]);
  });

  it('reads a key ahead once a run: planned again, it is read when it is sent', async () => {
    const ledger = fakeLedger({ a: ADA });
    const ahead = new LastSentAhead(ledger);
    ahead.readAhead([user('a', 'update')]);
    await ahead.lastSent('a');
    // Another step's row of the key: this run may have sent the first in between.
    ahead.readAhead([user('a', 'update')]);
    expect(ledger.asked).toEqual([['a']]);
    expect(await ahead.lastSent('a')).toEqual(ADA);
    expect(ledger.asked).toEqual([['a'], ['a']]);
  });

  it('fails the update that asks when the read ahead failed, and nothing else', async () => {
    const ledger = fakeLedger({ a: ADA });
    ledger.failing = true;
    const ahead = new LastSentAhead(ledger);
    // `b` is never asked for: its failed read must not be an unhandled rejection.
    ahead.readAhead([user('a', 'update'), user('b', 'update')]);
    await expect(ahead.lastSent('a')).rejects.toThrow('the ledger is gone');
  });
});
