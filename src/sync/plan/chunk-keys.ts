import type { Intent, IntentKind } from '../../model/intent.js';
import { duplicateResult } from './plan-intents.js';
import type { RowResult } from './sync-plan.js';

/**
 * A chunk's users but those whose key the run planned before, in this chunk or an earlier
 * one, and a failed result for each of those (`EVSYNC_DUPLICATE_KEY`): the first row is the
 * one synced, as `diffIntents` has it. `firstTime` notes a key as planned by the run, and
 * says whether it was new: one probe of the run's keys per user, where a look-up and a note
 * were two. Only a job with `merge: { users: false }` yields a user key in two steps (a
 * step's mapping finds its own repeats). Planned again, the repeat raced the first one's
 * send and was compared with the hash that send was changing: the platform kept either
 * row's values, by timing (docs/sync-engine.md, "Known limits").
 */
export function withoutRepeatedUsers(
  intents: readonly Intent[],
  firstTime: (key: string) => boolean,
): { kept: readonly Intent[]; repeats: RowResult[] } {
  let kept: Intent[] | undefined;
  /** The chunk's users kept, by key, to name the first row: made at the chunk's first repeat. */
  let firsts: Map<string, Intent['origin']> | undefined;
  const repeats: RowResult[] = [];
  for (const [at, intent] of intents.entries()) {
    if (intent.kind !== 'user' || firstTime(intent.key)) {
      kept?.push(intent);
      if (intent.kind === 'user') firsts?.set(intent.key, intent.origin);
      continue;
    }
    kept ??= intents.slice(0, at);
    firsts ??= new Map(kept.filter((one) => one.kind === 'user').map((one) => [one.key, one.origin]));
    repeats.push(duplicateResult(intent, firsts.get(intent.key)));
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
