/** One param of an indexed group: `prefix[index]` or `prefix[index][field]`. */
export interface IndexedName {
  name: string;
  index: string;
  field: string | undefined;
}

/**
 * The indexed groups an operation reads (`user[…][addresses_attributes]`, `event_client_ids`…),
 * compiled into one pattern so that a request's names are sorted into groups in a single
 * pass: validation runs once per source row, and scanning every name once per group cost
 * more than all the other rules of a user together.
 */
export class IndexedGroups {
  private readonly pattern: RegExp;

  constructor(readonly prefixes: readonly string[]) {
    const alternatives = prefixes.map((prefix) => prefix.replace(/[[\]]/g, '\\$&')).join('|');
    this.pattern = new RegExp(`^(${alternatives})\\[([^[\\]]*)\\](?:\\[([^[\\]]*)\\])?$`);
  }

  /** The names of `names` that belong to a group, by prefix, in their original order. */
  sort(names: readonly string[]): Map<string, IndexedName[]> {
    const groups = new Map<string, IndexedName[]>();
    for (const name of names) {
      const match = this.pattern.exec(name);
      if (!match) continue;
      const [, prefix = '', index = '', field] = match;
      const entry = { name, index, field };
      const group = groups.get(prefix);
      if (group) group.push(entry);
      else groups.set(prefix, [entry]);
    }
    return groups;
  }
}
