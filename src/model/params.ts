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
 */
export function sortNames(names: string[]): string[] {
  if (names.length > 24) return names.sort();
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
