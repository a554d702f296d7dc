import type { z } from 'zod';

/** The parts of zod's schema definitions this walk reads (zod 4's `_zod.def`). */
interface Def {
  type: string;
  shape?: Record<string, unknown>;
  innerType?: Schema;
  in?: Schema;
  out?: Schema;
  element?: Schema;
  options?: readonly Schema[];
  getter?: () => Schema;
}
type Schema = { _zod: { def: Def } } | z.ZodType;

/**
 * The keys an object of `schema` takes at `path` (list indexes skipped, every member of a
 * union asked): what a key that is not one of them was probably meant to be.
 */
export function keysAt(schema: Schema, path: readonly PropertyKey[]): Set<string> {
  const found = new Set<string>();
  const walk = (node: Schema, at: number, depth: number): void => {
    if (depth > 50) return;
    const def: Def = node._zod.def;
    switch (def.type) {
      case 'object':
        if (at === path.length) for (const key of Object.keys(def.shape ?? {})) found.add(key);
        else {
          const next = def.shape?.[String(path[at])];
          if (next !== undefined) walk(next as Schema, at + 1, depth + 1);
        }
        return;
      case 'array':
        if (def.element && at < path.length && typeof path[at] === 'number')
          walk(def.element, at + 1, depth + 1);
        return;
      case 'union':
        for (const option of def.options ?? []) walk(option, at, depth + 1);
        return;
      case 'pipe':
        if (def.in) walk(def.in, at, depth + 1);
        if (def.out) walk(def.out, at, depth + 1);
        return;
      case 'lazy':
        if (def.getter) walk(def.getter(), at, depth + 1);
        return;
      default:
        if (def.innerType) walk(def.innerType, at, depth + 1);
    }
  };
  walk(schema, 0, 0);
  return found;
}

/**
 * The known key closest to `key` when it is close enough to be a slip (`step` for `steps`,
 * `per_secnd` for `per_second`): at most a third of its letters apart, case aside.
 */
export function closestKey(key: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(Math.max(key.length, best.length) / 3))
    ? best
    : undefined;
}

/** Levenshtein distance: the fewest letters added, removed or changed to turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
}
