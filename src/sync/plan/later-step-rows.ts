import { CODE } from '../../errors/codes.js';
import type { Intent, IntentKind } from '../../model/intent.js';
import { describeOrigin, freeRepeatedRowKey } from '../../model/row-origin.js';
import type { RowResult } from './sync-plan.js';

/**
 * A key that a later step yields again (a session sheet's event that an extra sheet
 * overrides; users are merged or kept apart before this, `collect/`): within a plan's
 * chunk the later row takes the earlier one's place, as `collectIntents` does, and the
 * earlier row is recorded skipped, naming the row that replaced it. Without that it had
 * no result at all. A later step's row in a later chunk is planned again after the earlier
 * one instead, each with its result.
 */
export class LaterStepRows {
  /** Result keys given so far: one result per key and run. */
  private readonly keys = new Set<string>();

  /** The intents of a chunk, a later intent of a key in the earlier one's place, and the results of those replaced. */
  lastOfEachKey(intents: readonly Intent[]): { unique: Intent[]; replaced: RowResult[] } {
    const unique: Intent[] = [];
    const replaced: RowResult[] = [];
    // Keyed per kind, not by a `kind + key` string made per row.
    const places = new Map<IntentKind, Map<string, number>>();
    for (const intent of intents) {
      let ofKind = places.get(intent.kind);
      if (!ofKind) places.set(intent.kind, (ofKind = new Map<string, number>()));
      const place = ofKind.get(intent.key);
      if (place === undefined) {
        ofKind.set(intent.key, unique.length);
        unique.push(intent);
        continue;
      }
      replaced.push(this.replacedRow(unique[place]!, intent));
      unique[place] = intent;
    }
    return { unique, replaced };
  }

  private replacedRow(earlier: Intent, later: Intent): RowResult {
    const key = freeRepeatedRowKey(earlier.key, earlier.origin.row, (taken) =>
      this.keys.has(`${earlier.kind}\u0000${taken}`),
    );
    this.keys.add(`${earlier.kind}\u0000${key}`);
    return {
      kind: earlier.kind,
      key,
      action: 'skipped',
      origin: earlier.origin,
      errorCode: CODE.EVSYNC_DUPLICATE_ROW,
      message:
        `${earlier.kind} "${earlier.key}" comes again in ${later.origin.source} ${describeOrigin(later.origin)}, ` +
        "a later step's row, which takes this row's place and is the one sent. If both should be sent, give them different client_ids",
      // Still in the sources: mirror mode keeps the key.
      keptKeys: [{ kind: earlier.kind, key: earlier.key }],
    };
  }
}
