/**
 * Write params as the platform names them: flat, bracketed keys (`user[first_name]`,
 * `event_client_ids[0]`) mapped to string values. Intents, the client and the sandbox
 * all speak this one shape; nested objects exist only at the edges.
 */
export type FlatParams = Record<string, string>;

/**
 * Sorts names in place as `Array.prototype.sort()` does (by UTF-16 code units) and returns
 * them. A request's or an intent's params are a handful of names: an insertion sort of
 * those allocates nothing, where the native sort made a work array for every call (the
 * signer and the plan hash sort the names of every intent; docs/sync-engine.md, "CPU per
 * call"). Longer lists take the native sort.
 *
 * The intents of one kind carry the same names in the same order, call after call, so a
 * list of many names that matches one sorted lately (name for name) takes that order again
 * instead of being sorted.
 */
export function sortNames(names: string[]): string[] {
  if (names.length < RECENT_FROM) return insertionSort(names);
  for (const recent of recentLists) {
    if (sameNames(recent.given, names)) {
      for (let i = 0; i < names.length; i += 1) names[i] = recent.sorted[i]!;
      return names;
    }
  }
  const given = names.slice();
  const sorted = names.length > 24 ? names.sort() : insertionSort(names);
  recentLists[nextRecent] = { given, sorted: sorted.slice() };
  nextRecent = (nextRecent + 1) % RECENT_LISTS;
  return sorted;
}

/** Lists shorter than this are sorted outright: looking for them costs about as much. */
const RECENT_FROM = 8;
/** A few kinds (a user's create, its update, a session's) alternate within a run. */
const RECENT_LISTS = 4;
const recentLists: Array<{ given: readonly string[]; sorted: readonly string[] }> = [];
let nextRecent = 0;

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

function insertionSort(names: string[]): string[] {
  for (let i = 1; i < names.length; i += 1) {
    const name = names[i]!;
    let j = i - 1;
    while (j >= 0 && names[j]! > name) {
      names[j + 1] = names[j]!;
      j -= 1;
    }
    names[j + 1] = name;
  }
  return names;
}
