import type { Ledger } from '../../ledger/ledger.js';
import type { IntentKind } from '../../model/intent.js';
import { PARENT_KINDS } from '../../model/intent.js';
import { CompactIdMap } from './compact-id-map.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import { SUCCESS_ACTIONS, type IntentResultInput } from '../../model/result-records.js';

/** What an id cache asks the ledger for ids it does not hold. */
export type IdLookup = Pick<Ledger, 'platformIdsOf' | 'idPages'>;

/** Ids a cache with a ledger holds before it forgets the oldest it fetched (about 40 bytes each). */
export const ID_WINDOW = 50_000;

/**
 * Keys asked of the ledger and not found before a cache reads which keys the id map has: a
 * probe costs about 100 µs on the embedded ledger, and reading 200,000 keys about a second.
 */
export const PROBES_BEFORE_KEYS = 2_000;

/** A window entry for a key the ledger was asked about and has no id for, or one deleted. */
const ABSENT = -1;

/**
 * The ids of users and events a run works with (docs/sync-engine.md, "Memory"):
 * - a window of exact ids ({@link CompactIdMap}): those fetched for the chunks being sent
 *   (`prefetch`, one statement per kind and chunk), and those this run set, kept until the
 *   ledger holds their result (`recorded`). It holds two generations of fetched ids, of half
 *   {@link ID_WINDOW} each, and forgets the older when the newer is full: the ledger still
 *   answers for them, and the ids of a chunk still queued stay.
 * - once the ledger has said "no id" {@link PROBES_BEFORE_KEYS} times (an import), which keys
 *   the id map has, read once as 64-bit hashes (a {@link KeyRegistry} slot, about 16 bytes a
 *   key): a new key is then known to be new without asking. A nightly run that changed little
 *   never reads them. `loadIdCache` reads them at once.
 *
 * `has` is exact for a key in the window; outside it, it answers by hash once the keys are
 * read, and "may be known" before. A false "yes" plans an update where a create was due, or
 * lets a dependent go whose parent `get` then finds missing (it is named by client_id).
 * `get` is always exact: a key outside the window that may be known is asked of the ledger.
 * Without a ledger (tests, an in-memory plan) the cache knows what it was given and set.
 */
export class IdCache {
  /** Which keys the id map has, by hash; complete once `keysRead`. */
  private known: Map<IntentKind, KeyRegistry> | undefined;
  private keysRead: boolean;
  private reading: Promise<void> | undefined;
  private misses = 0;
  /** Fetched and set ids: the newer generation, then the older. */
  private current = new Map<IntentKind, CompactIdMap>();
  private older = new Map<IntentKind, CompactIdMap>();
  /** Keys whose window entry this run wrote and the ledger does not hold yet. */
  private readonly pinned = new Map<IntentKind, Set<string>>();
  /** Look-ups in flight, and the keys set or deleted while they were: their answer is stale. */
  private asking = 0;
  private readonly touched = new Set<string>();
  /** Entries put in the newer generation since it began (the pinned ones it took over aside). */
  private added = 0;

  constructor(
    initial: Iterable<readonly [IntentKind, ReadonlyMap<string, number>]> = [],
    private readonly ledger?: IdLookup,
    private readonly capacity = ledger ? ID_WINDOW : Number.POSITIVE_INFINITY,
  ) {
    this.keysRead = ledger === undefined;
    if (!ledger) this.known = new Map();
    for (const [kind, map] of initial) for (const [key, id] of map) this.set(kind, key, id);
  }

  /** Ids the window holds now (fetched, set, or found missing). */
  get held(): number {
    let count = 0;
    for (const generation of [this.current, this.older])
      for (const map of generation.values()) count += map.size;
    return count;
  }

  /**
   * Whether the id map may know the key: exact in the window; otherwise by 64-bit hash once
   * the keys are read, and "may be known" before.
   */
  has(kind: IntentKind, clientId: string): boolean {
    const id = this.held_(kind, clientId);
    if (id !== undefined) return id !== ABSENT;
    return this.mayKnow(kind, clientId);
  }

  /**
   * The key's platform id when the cache can say without the ledger: the id, `null` for a
   * key it knows has none, `undefined` when only `get` can tell (it asks the ledger). What
   * a processor asks first, so that the common answer takes no promise.
   */
  peek(kind: IntentKind, clientId: string): number | null | undefined {
    const held = this.held_(kind, clientId);
    if (held !== undefined) return held === ABSENT ? null : held;
    return !this.ledger || !this.mayKnow(kind, clientId) ? null : undefined;
  }

  /** The key's platform id: from the window, or asked of the ledger when the key may be known. */
  async get(kind: IntentKind, clientId: string): Promise<number | undefined> {
    const held = this.held_(kind, clientId);
    if (held !== undefined) return held === ABSENT ? undefined : held;
    if (!this.ledger || !this.mayKnow(kind, clientId)) return undefined;
    return (await this.ask(kind, [clientId])).get(clientId);
  }

  /**
   * Fetches, in one statement per kind, the ids of these keys that the window lacks and the
   * id map may have: what a chunk's planner, gate and processors will ask for.
   */
  async prefetch(refs: Iterable<{ kind: IntentKind; key: string }>): Promise<void> {
    if (!this.ledger) return;
    const byKind = this.unheld(refs);
    let asked = 0;
    for (const keys of byKind.values()) asked += keys.size;
    if (asked === 0) return;
    if (!this.keysRead && this.misses + asked > PROBES_BEFORE_KEYS) {
      await this.readKeys();
      for (const [kind, keys] of byKind)
        for (const key of keys) if (!this.mayKnow(kind, key)) keys.delete(key);
    }
    for (const [kind, keys] of byKind) if (keys.size > 0) await this.ask(kind, [...keys]);
  }

  /**
   * Reads which keys the id map has now (`loadIdCache`), forgetting what the window fetched:
   * other processes may have changed those since (a distributed run).
   */
  async reload(): Promise<void> {
    this.current = this.pinnedOf(this.current);
    this.older = this.pinnedOf(this.older);
    if (!this.ledger) return;
    this.known = undefined;
    this.keysRead = false;
    this.reading = undefined;
    await this.readKeys();
  }

  set(kind: IntentKind, clientId: string, platformId: number): void {
    if (this.known) this.knownOf(kind).add(clientId, 1);
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
   * The whole id map of a kind as this run sees it: the ledger's, page by page, with the ids
   * this run set and the ledger does not hold yet. Mirror deletes walk it once, at the end.
   */
  async snapshot(kind: IntentKind): Promise<CompactIdMap> {
    const map = new CompactIdMap();
    if (this.ledger)
      for await (const page of this.ledger.idPages(kind)) for (const [key, id] of page) map.set(key, id);
    for (const key of this.pinned.get(kind) ?? []) {
      const id = this.held_(kind, key);
      if (id === ABSENT) map.delete(key);
      else if (id !== undefined) map.set(key, id);
    }
    return map;
  }

  /** A read-only view of one kind, for the planner: `has` as {@link has}. */
  view(kind: IntentKind): IdView {
    return { has: (clientId) => this.has(kind, clientId) };
  }

  private held_(kind: IntentKind, clientId: string): number | undefined {
    return this.current.get(kind)?.get(clientId) ?? this.older.get(kind)?.get(clientId);
  }

  private mayKnow(kind: IntentKind, clientId: string): boolean {
    if (!this.keysRead) return true;
    return this.known?.get(kind)?.firstRow(clientId) !== undefined;
  }

  /** The keys of `refs` the window lacks and the id map may have, per kind. */
  private unheld(refs: Iterable<{ kind: IntentKind; key: string }>): Map<IntentKind, Set<string>> {
    const byKind = new Map<IntentKind, Set<string>>();
    for (const { kind, key } of refs) {
      if (this.held_(kind, key) !== undefined || !this.mayKnow(kind, key)) continue;
      let keys = byKind.get(kind);
      if (!keys) byKind.set(kind, (keys = new Set()));
      keys.add(key);
    }
    return byKind;
  }

  /** Reads the id map's keys once; ids set meanwhile are added as they come. */
  private readKeys(): Promise<void> {
    const ledger = this.ledger;
    if (!ledger || this.keysRead) return Promise.resolve();
    this.reading ??= (async () => {
      const known = new Map<IntentKind, KeyRegistry>();
      this.known = known;
      for (const kind of PARENT_KINDS)
        for await (const page of ledger.idPages(kind))
          for (const [key] of page) this.knownOf(kind).add(key, 1);
      // A reload started meanwhile reads again: this reading is not the newest.
      if (this.known === known) this.keysRead = true;
    })();
    return this.reading;
  }

  private async ask(kind: IntentKind, keys: string[]): Promise<ReadonlyMap<string, number>> {
    this.asking++;
    let found: ReadonlyMap<string, number>;
    try {
      found = await this.ledger!.platformIdsOf(kind, keys);
    } finally {
      this.asking--;
    }
    if (!this.keysRead) this.misses += keys.length - found.size;
    for (const key of keys) {
      // Set or deleted while the ledger answered: the window's entry is newer than the answer.
      if (this.touched.has(`${kind}\u0000${key}`) || this.held_(kind, key) !== undefined) continue;
      this.hold(kind, key, found.get(key) ?? ABSENT, false);
    }
    if (this.asking === 0) this.touched.clear();
    return found;
  }

  private hold(kind: IntentKind, clientId: string, id: number, pin: boolean): void {
    if (pin) {
      if (this.asking > 0) this.touched.add(`${kind}\u0000${clientId}`);
      let pins = this.pinned.get(kind);
      if (!pins) this.pinned.set(kind, (pins = new Set()));
      pins.add(clientId);
      // One entry per key: the older generation's would be found second, but kept stale.
      this.older.get(kind)?.delete(clientId);
    }
    let map = this.current.get(kind);
    if (!map) this.current.set(kind, (map = new CompactIdMap()));
    map.set(clientId, id);
    if (++this.added > this.capacity / 2) this.turnOver();
  }

  /** The newer generation becomes the older; the older's fetched ids are forgotten, its pinned ones kept. */
  private turnOver(): void {
    const kept = this.pinnedOf(this.older);
    this.older = this.current;
    this.current = kept;
    this.added = 0;
  }

  /** The entries of a generation that this run wrote and the ledger does not hold yet. */
  private pinnedOf(generation: Map<IntentKind, CompactIdMap>): Map<IntentKind, CompactIdMap> {
    const kept = new Map<IntentKind, CompactIdMap>();
    for (const [kind, map] of generation) {
      const ids = new CompactIdMap();
      for (const key of this.pinned.get(kind) ?? []) {
        const id = map.get(key);
        if (id !== undefined) ids.set(key, id);
      }
      if (ids.size > 0) kept.set(kind, ids);
    }
    return kept;
  }

  private knownOf(kind: IntentKind): KeyRegistry {
    this.known ??= new Map();
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
 * A run's id cache that has read which keys the ledger's id map has (by hash: the ids
 * themselves are fetched chunk by chunk). Given a cache in use, it reads them again and
 * forgets the ids it fetched, which other processes may have changed since.
 */
export async function loadIdCache(ledger: IdLookup, cache?: IdCache): Promise<IdCache> {
  const ids = cache ?? new IdCache([], ledger);
  await ids.reload();
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
