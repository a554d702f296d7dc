import type { Ledger } from '../../ledger/ledger.js';
import type { IntentKind } from '../../model/intent.js';
import { PARENT_KINDS } from '../../model/intent.js';
import { CompactIdMap } from './compact-id-map.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import { SUCCESS_ACTIONS, type IntentResultInput } from '../../model/result-records.js';

/** What an id cache asks the ledger for ids it does not hold. */
export type IdLookup = Pick<Ledger, 'platformIdsOf'>;

/** Ids a cache with a ledger holds before it forgets those the ledger has (about 40 bytes each). */
export const ID_WINDOW = 50_000;

/** A window entry for a key the ledger was asked about and has no id for, or one deleted. */
const ABSENT = -1;

/**
 * The ids of users and events a run works with (docs/sync-engine.md, "Memory"). It keeps:
 * - which keys the id map may know, as 64-bit hashes (a {@link KeyRegistry} slot, about 16
 *   bytes a key), read once page by page: a key it does not have is new without asking;
 * - a window of exact ids ({@link CompactIdMap}): those fetched for the chunks being sent
 *   (`prefetch`, one statement per kind and chunk), and those this run set, kept until the
 *   ledger holds their result (`recorded`). Past {@link ID_WINDOW} entries it forgets the
 *   fetched ones, which the ledger still answers.
 *
 * `has` is exact for a key in the window and otherwise answers by hash: a false "yes" (two
 * keys sharing 64 bits) plans an update where a create was due, whose id `get` then finds
 * missing. `get` is always exact: a key the window lacks and the hashes may know is asked
 * of the ledger. Without a ledger (tests, an in-memory plan) nothing is forgotten.
 */
export class IdCache {
  private readonly known = new Map<IntentKind, KeyRegistry>();
  private readonly windows = new Map<IntentKind, CompactIdMap>();
  /** Keys whose window entry this run wrote and the ledger does not hold yet. */
  private readonly pinned = new Map<IntentKind, Set<string>>();
  private heldCount = 0;
  /** Look-ups in flight, and the keys set or deleted while they were: their answer is stale. */
  private asking = 0;
  private readonly touched = new Set<string>();

  constructor(
    initial: Iterable<readonly [IntentKind, ReadonlyMap<string, number>]> = [],
    private readonly ledger?: IdLookup,
    private readonly capacity = ledger ? ID_WINDOW : Number.POSITIVE_INFINITY,
  ) {
    for (const [kind, map] of initial) for (const [key, id] of map) this.set(kind, key, id);
  }

  /** Ids the window holds now (fetched, set, or found missing). */
  get held(): number {
    return this.heldCount;
  }

  /** Whether the id map may know the key: exact in the window, by 64-bit hash otherwise. */
  has(kind: IntentKind, clientId: string): boolean {
    const id = this.windows.get(kind)?.get(clientId);
    if (id !== undefined) return id !== ABSENT;
    return this.known.get(kind)?.firstRow(clientId) !== undefined;
  }

  /** The key's platform id: from the window, or asked of the ledger when the key may be known. */
  async get(kind: IntentKind, clientId: string): Promise<number | undefined> {
    const held = this.windows.get(kind)?.get(clientId);
    if (held !== undefined) return held === ABSENT ? undefined : held;
    if (!this.has(kind, clientId) || !this.ledger) return undefined;
    const found = (await this.ask(kind, [clientId])).get(clientId);
    return found;
  }

  /**
   * Fetches, in one statement per kind, the ids of these keys that the window lacks and the
   * id map may have: what a chunk's processors and gate will ask for.
   */
  async prefetch(refs: Iterable<{ kind: IntentKind; key: string }>): Promise<void> {
    if (!this.ledger) return;
    const byKind = new Map<IntentKind, Set<string>>();
    for (const { kind, key } of refs) {
      if (this.windows.get(kind)?.get(key) !== undefined || this.known.get(kind)?.firstRow(key) === undefined)
        continue;
      let keys = byKind.get(kind);
      if (!keys) byKind.set(kind, (keys = new Set()));
      keys.add(key);
    }
    for (const [kind, keys] of byKind) await this.ask(kind, [...keys]);
  }

  /** Adds a key the id map has (read from the ledger): known by hash, fetched when asked. */
  know(kind: IntentKind, clientId: string): void {
    this.knownOf(kind).add(clientId, 1);
  }

  set(kind: IntentKind, clientId: string, platformId: number): void {
    this.know(kind, clientId);
    this.hold(kind, clientId, platformId, true);
  }

  delete(kind: IntentKind, clientId: string): void {
    this.hold(kind, clientId, ABSENT, true);
  }

  /**
   * Results the ledger now holds (`ResultWriterOptions.onRecorded`): the ids their successes
   * and deletes wrote are the ledger's, and may leave the window. A failed result's id stays:
   * the ledger did not keep it.
   */
  recorded(results: readonly IntentResultInput[]): void {
    for (const result of results) {
      const pins = this.pinned.get(result.kind);
      if (!pins || pins.size === 0) continue;
      const success = (SUCCESS_ACTIONS as readonly string[]).includes(result.action);
      if (success && result.platformId != null) {
        pins.delete(result.key);
        for (const alias of result.aliases ?? []) pins.delete(alias);
      } else if (result.action === 'deleted' || result.action === 'retired') pins.delete(result.key);
    }
  }

  /**
   * Forgets what the window holds from the ledger, and adds the keys the ledger has now (other
   * processes' work, in a distributed run): `loadIdCache` on a cache already in use.
   */
  forgetFetched(): void {
    for (const kind of [...this.windows.keys()]) this.keepPinned(kind);
  }

  /**
   * The whole id map of a kind as this run sees it: the ledger's, page by page, with the ids
   * this run set and the ledger does not hold yet. Mirror deletes walk it once, at the end.
   */
  async snapshot(kind: IntentKind, ledger: Pick<Ledger, 'idPages'>): Promise<CompactIdMap> {
    const map = new CompactIdMap();
    for await (const page of ledger.idPages(kind)) for (const [key, id] of page) map.set(key, id);
    const window = this.windows.get(kind);
    for (const key of this.pinned.get(kind) ?? []) {
      const id = window?.get(key);
      if (id === ABSENT) map.delete(key);
      else if (id !== undefined) map.set(key, id);
    }
    return map;
  }

  /** A read-only view of one kind, for the planner: `has` as {@link has}. */
  view(kind: IntentKind): IdView {
    return { has: (clientId) => this.has(kind, clientId) };
  }

  private async ask(kind: IntentKind, keys: string[]): Promise<ReadonlyMap<string, number>> {
    this.asking++;
    let found: ReadonlyMap<string, number>;
    try {
      found = await this.ledger!.platformIdsOf(kind, keys);
    } finally {
      this.asking--;
    }
    this.makeRoom(keys.length);
    for (const key of keys) {
      // Set or deleted while the ledger answered: the window's entry is newer than the answer.
      if (this.touched.has(`${kind}\u0000${key}`) || this.windows.get(kind)?.get(key) !== undefined) continue;
      this.hold(kind, key, found.get(key) ?? ABSENT, false);
    }
    if (this.asking === 0) this.touched.clear();
    return found;
  }

  private hold(kind: IntentKind, clientId: string, id: number, pin: boolean): void {
    let window = this.windows.get(kind);
    if (!window) this.windows.set(kind, (window = new CompactIdMap()));
    const size = window.size;
    window.set(clientId, id);
    this.heldCount += window.size - size;
    if (!pin) return;
    if (this.asking > 0) this.touched.add(`${kind}\u0000${clientId}`);
    let pins = this.pinned.get(kind);
    if (!pins) this.pinned.set(kind, (pins = new Set()));
    pins.add(clientId);
    if (this.heldCount > this.capacity) this.makeRoom(0);
  }

  /** Forgets the fetched entries when `adding` more would pass the window's size. */
  private makeRoom(adding: number): void {
    if (this.heldCount + adding <= this.capacity) return;
    for (const kind of [...this.windows.keys()]) this.keepPinned(kind);
  }

  private keepPinned(kind: IntentKind): void {
    const old = this.windows.get(kind);
    if (!old) return;
    const kept = new CompactIdMap();
    for (const key of this.pinned.get(kind) ?? []) {
      const id = old.get(key);
      if (id !== undefined) kept.set(key, id);
    }
    this.heldCount += kept.size - old.size;
    this.windows.set(kind, kept);
  }

  private knownOf(kind: IntentKind): KeyRegistry {
    let known = this.known.get(kind);
    if (!known) this.known.set(kind, (known = new KeyRegistry()));
    return known;
  }
}

/** What the planner asks of a kind's ids. */
export interface IdView {
  has(clientId: string): boolean;
}

/**
 * The keys the ledger's id map has, read page by page into a run's id cache (by hash: the ids
 * themselves are fetched chunk by chunk). Given a cache in use, it also forgets the ids it
 * fetched, which other processes may have changed since.
 */
export async function loadIdCache(
  ledger: IdLookup & Pick<Ledger, 'idPages'>,
  cache?: IdCache,
): Promise<IdCache> {
  const ids = cache ?? new IdCache([], ledger);
  ids.forgetFetched();
  for (const kind of PARENT_KINDS)
    for await (const page of ledger.idPages(kind)) for (const [key] of page) ids.know(kind, key);
  return ids;
}

/**
 * A copy of `text` that holds none of the string it was cut from. A client_id read from a
 * CSV is a slice of the 64 KB chunk it came in: kept in a set or map for the whole run,
 * each would keep its chunk alive, and a million-row import its whole file (docs/sync-engine.md,
 * "Memory"). Joining forces V8 to flatten into a new string; the slice after it refers to
 * that copy only.
 */
export function ownCopy(text: string): string {
  return ` ${text}`.slice(1);
}

/**
 * A deep copy of a row or an intent read from a source that shares no string with it (see
 * {@link ownCopy}): what a plan keeps past the chunk it was read in.
 */
export function ownCopyOf<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
