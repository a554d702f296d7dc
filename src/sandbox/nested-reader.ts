import type { NestedParam, NestedParams } from '../platform/params.js';

/** Safe reads from `unflattenParams` output, where any level may be a string or missing. */
export function child(node: NestedParam | undefined, key: string): NestedParams | undefined {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  const value = node[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

export function text(node: NestedParam | undefined, key: string): string | undefined {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  const value = node[key];
  return typeof value === 'string' ? value : undefined;
}

/** A sent value, with blank meaning "clear it". */
export function nullable(value: string): string | null {
  return value === '' ? null : value;
}

/** `{'0': {...}, '1': {...}}` → its object entries in index order, with their index. */
export function indexedChildren(node: NestedParams | undefined): Array<[string, NestedParams]> {
  if (!node) return [];
  return Object.keys(node)
    .filter((key) => /^\d+$/.test(key))
    .sort((a, b) => Number(a) - Number(b))
    .flatMap((key): Array<[string, NestedParams]> => {
      const value = child(node, key);
      return value ? [[key, value]] : [];
    });
}

/** `a, b ,, c` → `['a', 'b', 'c']` (tags_list). */
export function splitList(list: string): string[] {
  return list
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
