import type { Intent, IntentKind } from '../../model/intent.js';
import { duplicateResult } from './plan-intents.js';
import type { RowResult } from './sync-plan.js';

/**
 * A chunk's users but those whose key the run planned before, or an earlier user of the
 * chunk has, and a failed result for each of those (`EVSYNC_DUPLICATE_KEY`): the first row
 * is the one synced, as `diffIntents` has it. Only a job with `merge: { users: false }`
 * yields a user key in two steps (a step's mapping finds its own repeats). Planned again,
 * the repeat raced the first one's send and was compared with the hash that send was
 * changing: the platform kept either row's values, by timing (docs/sync-engine.md, "Known limits").
 */
export function withoutRepeatedUsers(
  intents: readonly Intent[],
  plannedBefore: (key: string) => boolean,
): { kept: readonly Intent[]; repeats: RowResult[] } {
  let firsts: Map<string, Intent['origin']> | undefined;
  let kept: Intent[] | undefined;
  const repeats: RowResult[] = [];
  for (const [at, intent] of intents.entries()) {
    if (intent.kind !== 'user') {
      kept?.push(intent);
      continue;
    }
    firsts ??= new Map();
    const first = firsts.get(intent.key);
    if (first === undefined && !plannedBefore(intent.key)) {
      firsts.set(intent.key, intent.origin);
      kept?.push(intent);
      continue;
    }
    kept ??= intents.slice(0, at);
    repeats.push(duplicateResult(intent, first));
  }
  return { kept: kept ?? intents, repeats };
}

/**
 * The intents of a chunk, a later intent of a key in the earlier one's place, as
 * `collectIntents` does. Keyed per kind, not by a `kind + key` string made per row.
 */
export function lastOfEachKey(intents: readonly Intent[]): Intent[] {
  const unique: Intent[] = [];
  const places = new Map<IntentKind, Map<string, number>>();
  for (const intent of intents) {
    let ofKind = places.get(intent.kind);
    if (!ofKind) places.set(intent.kind, (ofKind = new Map<string, number>()));
    const place = ofKind.get(intent.key);
    if (place === undefined) {
      ofKind.set(intent.key, unique.length);
      unique.push(intent);
    } else unique[place] = intent;
  }
  return unique;
}
