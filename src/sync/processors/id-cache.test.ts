import { describe, expect, it } from 'vitest';
import type { IntentKind } from '../../model/intent.js';
import { IdCache, loadIdCache, PROBES_BEFORE_KEYS } from './id-cache.js';

/** A ledger's id map that counts what it is asked. */
function fakeLedger(entries: Record<string, number>, kind: IntentKind = 'user') {
  const map = new Map(Object.entries(entries));
  const asked: string[][] = [];
  let answer: (() => void) | undefined;
  const ledger = {
    map,
    asked,
    /** Holds the next answer until `release` is called. */
    hold: false,
    release: () => answer?.(),
    async platformIdsOf(of: IntentKind, keys: readonly string[]): Promise<Map<string, number>> {
      asked.push([...keys]);
      const found = new Map<string, number>();
      if (of === kind) for (const key of keys) if (map.has(key)) found.set(key, map.get(key)!);
      if (ledger.hold) await new Promise<void>((resolve) => (answer = resolve));
      return found;
    },
    async *idPages(of: IntentKind): AsyncIterable<Array<[string, number]>> {
      await Promise.resolve();
      if (of === kind) yield [...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    },
  };
  return ledger;
}

describe('IdCache', () => {
  it('asks the ledger only about keys its id map may have, and answers exactly', async () => {
    const ledger = fakeLedger({ u1: 11, u2: 12 });
    const ids = await loadIdCache(ledger);
    expect(ids.held).toBe(0);
    expect(ids.has('user', 'u1')).toBe(true);
    expect(ids.has('user', 'new')).toBe(false);
    expect(await ids.get('user', 'new')).toBeUndefined();
    expect(ledger.asked).toEqual([]);
    expect(await ids.get('user', 'u1')).toBe(11);
    expect(await ids.get('user', 'u1')).toBe(11);
    expect(ledger.asked).toEqual([['u1']]);
  });

  it('peeks without the ledger: the id, null for none, undefined when only get can tell', async () => {
    const ledger = fakeLedger({ u1: 11, u2: 12 });
    const ids = new IdCache([], ledger);
    // Before the keys are read, any key may be known: only `get` can tell.
    expect(ids.peek('user', 'u1')).toBeUndefined();
    await ids.prefetch([
      { kind: 'user', key: 'u1' },
      { kind: 'user', key: 'gone' },
    ]);
    expect(ids.peek('user', 'u1')).toBe(11);
    expect(ids.peek('user', 'gone')).toBeNull();
    ids.set('user', 'fresh', 99);
    ids.delete('user', 'u1');
    expect(ids.peek('user', 'fresh')).toBe(99);
    expect(ids.peek('user', 'u1')).toBeNull();
    expect(ids.peek('user', 'u2')).toBeUndefined();
    const read = await loadIdCache(ledger);
    expect(read.peek('user', 'new')).toBeNull();
    expect(read.peek('user', 'u2')).toBeUndefined();
    expect(await read.get('user', 'u2')).toBe(12);
    expect(read.peek('user', 'u2')).toBe(12);
    // Without a ledger the cache knows all there is.
    expect(new IdCache().peek('user', 'x')).toBeNull();
  });

  it('fetches a chunk in one statement per kind, and forgets fetched ids past its window', async () => {
    const entries = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`u${i}`, i + 1]));
    const ledger = fakeLedger(entries);
    const ids = await loadIdCache(ledger, new IdCache([], ledger, 250));
    for (let start = 0; start < 1000; start += 100) {
      const chunk = Array.from({ length: 100 }, (_, i) => ({ kind: 'user' as const, key: `u${start + i}` }));
      await ids.prefetch([...chunk, { kind: 'user', key: 'not-known' }]);
      expect(ids.held).toBeLessThanOrEqual(250);
      for (const { key } of chunk) expect(await ids.get('user', key)).toBe(entries[key]);
    }
    expect(ledger.asked).toHaveLength(10);
    expect(ledger.asked.every((keys) => keys.length === 100)).toBe(true);
    // u0 left the window long ago: asked again, and still right.
    expect(await ids.get('user', 'u0')).toBe(1);
    expect(ledger.asked.at(-1)).toEqual(['u0']);
  });

  it('keeps an id this run set until the ledger holds its success, then may forget it', async () => {
    const ledger = fakeLedger(Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`k${i}`, i + 1])));
    const ids = await loadIdCache(ledger, new IdCache([], ledger, 10));
    ids.set('user', 'made', 99);
    ids.set('user', 'failed-after-create', 98);
    // Fill the window many times over with fetched answers.
    for (let i = 0; i < 50; i++) await ids.prefetch([{ kind: 'user', key: `k${i}` }]);
    expect(await ids.get('user', 'made')).toBe(99);
    ids.recorded([
      { runId: 'r', kind: 'user', key: 'made', action: 'created', platformId: 99 },
      { runId: 'r', kind: 'user', key: 'failed-after-create', action: 'failed', platformId: 98 },
    ]);
    ledger.map.set('made', 99);
    for (let i = 50; i < 70; i++) await ids.prefetch([{ kind: 'user', key: `k${i}` }]);
    const before = ledger.asked.length;
    // The ledger did not keep a failed result's id: the cache still does.
    expect(await ids.get('user', 'failed-after-create')).toBe(98);
    expect(ledger.asked.length).toBe(before);
    // The created one left the window, and the ledger answers for it.
    expect(await ids.get('user', 'made')).toBe(99);
    expect(ledger.asked.at(-1)).toEqual(['made']);
  });

  it('asks about keys before it reads which the id map has, and reads them once many were new', async () => {
    const ledger = fakeLedger({ old: 1 });
    const pages = ledger.idPages.bind(ledger);
    let reads = 0;
    ledger.idPages = (kind) => {
      reads += 1;
      return pages(kind);
    };
    const ids = new IdCache([], ledger);
    // A nightly run: the few keys asked about are asked exactly; the id map's keys are never read.
    await ids.prefetch([
      { kind: 'user', key: 'old' },
      { kind: 'user', key: 'new-0' },
    ]);
    expect(await ids.get('user', 'old')).toBe(1);
    expect(ids.has('user', 'new-0')).toBe(false);
    expect(reads).toBe(0);
    // An import: past PROBES_BEFORE_KEYS keys the ledger has no id for, the keys are read
    // once, and new keys are no longer asked about.
    for (let start = 1; start <= PROBES_BEFORE_KEYS + 1000; start += 500)
      await ids.prefetch(
        Array.from({ length: 500 }, (_, i) => ({ kind: 'user' as const, key: `new-${start + i}` })),
      );
    expect(reads).toBe(2);
    const asked = ledger.asked.flat().length;
    await ids.prefetch([{ kind: 'user', key: 'another-new' }]);
    expect(ledger.asked.flat().length).toBe(asked);
    expect(ids.has('user', 'another-new')).toBe(false);
    expect(ids.has('user', 'old')).toBe(true);
  });

  it('never lets a stale answer overwrite an id set while the ledger was answering', async () => {
    const ledger = fakeLedger({});
    const ids = new IdCache([], ledger);
    ledger.hold = true;
    const fetching = ids.prefetch([{ kind: 'user', key: 'u1' }]);
    await Promise.resolve();
    ids.set('user', 'u1', 7);
    ledger.release();
    await fetching;
    expect(await ids.get('user', 'u1')).toBe(7);
  });

  it('forgets a deleted key, and a reload forgets what it fetched', async () => {
    const ledger = fakeLedger({ u1: 11, u2: 12 });
    const ids = await loadIdCache(ledger);
    await ids.prefetch([
      { kind: 'user', key: 'u1' },
      { kind: 'user', key: 'u2' },
    ]);
    ids.delete('user', 'u1');
    expect(ids.has('user', 'u1')).toBe(false);
    expect(await ids.get('user', 'u1')).toBeUndefined();
    // Another process changed u2 since: a reload asks again.
    ledger.map.set('u2', 22);
    await loadIdCache(ledger, ids);
    expect(await ids.get('user', 'u2')).toBe(22);
    expect(await ids.get('user', 'u1')).toBeUndefined();
  });

  it('gives the whole id map as the run sees it: the ledger with the ids not recorded yet', async () => {
    const ledger = fakeLedger({ u1: 11, u2: 12 });
    const ids = await loadIdCache(ledger);
    ids.set('user', 'u3', 13);
    ids.delete('user', 'u2');
    const snapshot = await ids.snapshot('user');
    expect([...snapshot].sort()).toEqual([
      ['u1', 11],
      ['u3', 13],
    ]);
  });
});
