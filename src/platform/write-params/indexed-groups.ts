/** One param of an indexed group: `prefix[index]` or `prefix[index][field]`. */
export interface IndexedName {
  name: string;
  index: string;
  field: string | undefined;
}

interface Classified {
  prefix: string;
  entry: IndexedName;
}

// Rows of one source repeat the same names, so each name is classified once; the bound
// keeps requests with endless made-up names from growing the cache.
const CACHE_LIMIT = 10_000;

/**
 * The indexed groups an operation reads (`user[…][addresses_attributes]`, `event_client_ids`…),
 * compiled into one pattern so that a request's names are sorted into groups in a single
 * pass: validation runs once per source row, and scanning every name once per group cost
 * more than all the other rules of a user together.
 */
export class IndexedGroups {
  private readonly pattern: RegExp;
  private readonly cache = new Map<string, Classified | null>();

  constructor(readonly prefixes: readonly string[]) {
    const alternatives = prefixes.map((prefix) => prefix.replace(/[[\]]/g, '\\$&')).join('|');
    this.pattern = new RegExp(`^(${alternatives})\\[([^[\\]]*)\\](?:\\[([^[\\]]*)\\])?$`);
  }

  /** The names of `names` that belong to a group, by prefix, in their original order. */
  sort(names: readonly string[]): Map<string, IndexedName[]> {
    const groups = new Map<string, IndexedName[]>();
    for (const name of names) {
      const classified = this.classify(name);
      if (classified === null) continue;
      const group = groups.get(classified.prefix);
      if (group) group.push(classified.entry);
      else groups.set(classified.prefix, [classified.entry]);
    }
    return groups;
  }

  private classify(name: string): Classified | null {
    const cached = this.cache.get(name);
    if (cached !== undefined) return cached;
    const match = this.pattern.exec(name);
    const classified = match
      ? { prefix: match[1] ?? '', entry: Object.freeze({ name, index: match[2] ?? '', field: match[3] }) }
      : null;
    if (this.cache.size < CACHE_LIMIT) this.cache.set(name, classified);
    return classified;
  }
}
