import type { Ledger } from '../../ledger/ledger.js';
import type { IntentKind } from '../../model/intent.js';
import { PARENT_KINDS } from '../../model/intent.js';
import { CompactIdMap } from './compact-id-map.js';

/**
 * The id map of the run in memory: loaded from the ledger once, grown by every success.
 * The ledger gets the same ids through the results (in the results' transaction). Each
 * kind's ids are a {@link CompactIdMap}: a million users cost tens of megabytes outside the
 * heap, not a `Map`'s hundred on it (docs/sync-engine.md, "Memory").
 */
export class IdCache {
  private readonly maps = new Map<IntentKind, CompactIdMap>();

  constructor(initial: Iterable<readonly [IntentKind, ReadonlyMap<string, number>]> = []) {
    for (const [kind, map] of initial) this.maps.set(kind, new CompactIdMap(map));
  }

  get(kind: IntentKind, clientId: string): number | undefined {
    return this.maps.get(kind)?.get(clientId);
  }

  has(kind: IntentKind, clientId: string): boolean {
    return this.maps.get(kind)?.has(clientId) ?? false;
  }

  set(kind: IntentKind, clientId: string, platformId: number): void {
    let map = this.maps.get(kind);
    if (!map) this.maps.set(kind, (map = new CompactIdMap()));
    map.set(clientId, platformId);
  }

  delete(kind: IntentKind, clientId: string): void {
    this.maps.get(kind)?.delete(clientId);
  }

  view(kind: IntentKind): ReadonlyMap<string, number> {
    return this.maps.get(kind) ?? new Map();
  }
}

/**
 * The ledger's ids of users and events as a run's id cache, read page by page: one
 * statement for the whole map held its every row as an object at once, the peak of a big
 * resume's memory. Given a cache, adds them to it (what other processes found since).
 */
export async function loadIdCache(ledger: Pick<Ledger, 'idPages'>, cache = new IdCache()): Promise<IdCache> {
  for (const kind of PARENT_KINDS)
    for await (const page of ledger.idPages(kind)) for (const [key, id] of page) cache.set(kind, key, id);
  return cache;
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
