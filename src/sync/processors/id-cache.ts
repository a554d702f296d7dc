import type { IntentKind } from '../../model/intent.js';

/**
 * The id map of the run in memory: loaded from the ledger once, grown by every success.
 * The ledger gets the same ids through the results (in the results' transaction).
 */
export class IdCache {
  private readonly maps = new Map<IntentKind, Map<string, number>>();

  constructor(initial: Iterable<readonly [IntentKind, ReadonlyMap<string, number>]> = []) {
    for (const [kind, map] of initial) this.maps.set(kind, new Map(map));
  }

  get(kind: IntentKind, clientId: string): number | undefined {
    return this.maps.get(kind)?.get(clientId);
  }

  has(kind: IntentKind, clientId: string): boolean {
    return this.maps.get(kind)?.has(clientId) ?? false;
  }

  set(kind: IntentKind, clientId: string, platformId: number): void {
    let map = this.maps.get(kind);
    if (!map) this.maps.set(kind, (map = new Map<string, number>()));
    map.set(ownCopy(clientId), platformId);
  }

  delete(kind: IntentKind, clientId: string): void {
    this.maps.get(kind)?.delete(clientId);
  }

  view(kind: IntentKind): ReadonlyMap<string, number> {
    return this.maps.get(kind) ?? new Map();
  }
}

/**
 * A copy of `text` that holds none of the string it was cut from. A client_id read from a
 * CSV is a slice of the 64 KB chunk it came in: kept as a map key for the whole run, each
 * would keep its chunk alive, and a million-row import its whole file (docs/sync-engine.md,
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
