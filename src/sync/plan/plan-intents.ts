import { CODE } from '../../errors/codes.js';
import type { Intent, IntentKind } from '../../model/intent.js';
import type { PlannedAction, PlannedIntent } from '../../model/planned-intent.js';
import { describeOrigin } from '../../model/row-origin.js';
import { hashIntent } from './params-hash.js';
import type { IdView } from '../processors/id-cache.js';
import type { KnownState, RowResult } from './sync-plan.js';

/** What a diff asks of the ledger's state: the hashes, and whether a user or event has an id. */
export type KnownIds = Pick<KnownState, 'hashes'> & { ids: ReadonlyMap<IntentKind, IdView> };

export interface IntentDiff {
  work: PlannedIntent[];
  unchanged: PlannedIntent[];
  /** Later rows that repeat an earlier row's `(kind, key)`. */
  duplicates: RowResult[];
  /** Keys present in this run, per kind: what mirror mode keeps. */
  seen: Map<IntentKind, Set<string>>;
}

/**
 * New → create, changed → update, unchanged → no call. A row that failed last time has no
 * synced hash for its params (hashes are written only after a success), so it is sent again
 * without any special case. A full run (`full`) sends the unchanged rows too: see
 * {@link actionFor}.
 */
export function diffIntents(
  intents: Iterable<Intent>,
  known: KnownIds,
  /** The key of hashes of params with a secret: see `hashIntent`. */
  hashKey?: Uint8Array,
  /** A full run (`evsync run --full`): nothing is `unchanged` but check-ins. @defaultValue `false` */
  full = false,
  /** The hash of an intent's params, when the caller computed some already (`intentHashes`). */
  hashOf: (intent: Intent) => string = (intent) =>
    hashIntent(intent.op, intent.params, hashKey, intent.aliases),
): IntentDiff {
  const work: PlannedIntent[] = [];
  const unchanged: PlannedIntent[] = [];
  const duplicates: RowResult[] = [];
  const seen = new Map<IntentKind, Set<string>>();
  // Per kind, not by a `kind + key` string: every row of every run passes here.
  const firstOrigin = new Map<IntentKind, Map<string, Intent['origin']>>();

  for (const intent of intents) {
    let keys = seen.get(intent.kind);
    let origins = firstOrigin.get(intent.kind);
    if (!keys) seen.set(intent.kind, (keys = new Set()));
    if (!origins) firstOrigin.set(intent.kind, (origins = new Map<string, Intent['origin']>()));
    if (keys.has(intent.key)) {
      duplicates.push(duplicateResult(intent, origins.get(intent.key)));
      continue;
    }
    keys.add(intent.key);
    // A merged user's other client_ids are in the sources too: mirror mode keeps them.
    if (intent.aliases) for (const alias of intent.aliases) keys.add(alias);
    origins.set(intent.key, intent.origin);

    const previous = known.hashes.get(intent.kind)?.get(intent.key);
    const hash = previous === undefined ? undefined : hashOf(intent);
    const planned = plannedIntent(intent, actionFor(intent, previous, hash, known, full), hash, hashKey);
    (planned.plannedAction === 'unchanged' ? unchanged : work).push(planned);
  }
  return { work, unchanged, duplicates, seen };
}

/**
 * The hash of an intent's params (`hashIntent`), computed once per intent of a chunk: a
 * streamed plan asks for it to find an unchanged row (synced-hashes.ts) before the diff
 * compares it. A map per chunk, not a WeakMap over the run: 200,000 WeakMap entries cost
 * a fifth of a second at 200,000 rows, most of it in the collector. Keyed by kind and key,
 * not by the intent: a map keyed by objects gives each intent an identity hash, some 1 µs
 * a row; the intent is kept beside its hash, so another intent of the key is hashed anew.
 */
export function intentHashes(hashKey: Uint8Array | undefined): (intent: Intent) => string {
  const hashed = new Map<IntentKind, Map<string, { intent: Intent; hash: string }>>();
  return (intent) => {
    // Made by the mapping of a row found synced (`Intent.knownHash`), of these very params.
    const known = intent.knownHash;
    if (known?.params === intent.params && known.op === intent.op && intent.aliases === undefined)
      return known.hash;
    let ofKind = hashed.get(intent.kind);
    if (ofKind === undefined)
      hashed.set(intent.kind, (ofKind = new Map<string, { intent: Intent; hash: string }>()));
    const before = ofKind.get(intent.key);
    if (before?.intent === intent) return before.hash;
    const hash = hashIntent(intent.op, intent.params, hashKey, intent.aliases);
    ofKind.set(intent.key, { intent, hash });
    return hash;
  };
}

/**
 * A key never synced needs no hash to be planned, only once it is recorded and synced: its
 * hash is computed on first read, chunk by chunk as the plan is recorded while the first
 * calls go out, instead of for every row before the first call (SHA-256 of the params is
 * about 2 µs a row). The getter is an own, enumerable property, so spreads, JSON and
 * structured clones read it like any other. A hash known already (every unchanged row of a
 * nightly run) is a plain property: an object literal with a getter cost twice as much to make.
 */
function plannedIntent(
  intent: Intent,
  plannedAction: PlannedAction,
  hash: string | undefined,
  hashKey: Uint8Array | undefined,
): PlannedIntent {
  if (hash !== undefined) {
    const planned: PlannedIntent = {
      kind: intent.kind,
      key: intent.key,
      op: intent.op,
      plannedAction,
      params: intent.params,
      origin: intent.origin,
      dependsOn: intent.dependsOn,
      hash,
    };
    // Set apart, not spread into the literal: most intents have none of them.
    if (intent.aliases) planned.aliases = intent.aliases;
    if (intent.uncarried) planned.uncarried = intent.uncarried;
    if (intent.warnings) planned.warnings = intent.warnings;
    if (intent.plusOnShare) planned.plusOnShare = true;
    return planned;
  }
  return {
    kind: intent.kind,
    key: intent.key,
    op: intent.op,
    plannedAction,
    params: intent.params,
    origin: intent.origin,
    dependsOn: intent.dependsOn,
    ...(intent.aliases ? { aliases: intent.aliases } : {}),
    ...(intent.uncarried ? { uncarried: intent.uncarried } : {}),
    ...(intent.warnings ? { warnings: intent.warnings } : {}),
    ...(intent.plusOnShare ? { plusOnShare: true as const } : {}),
    get hash(): string {
      // `this`, not `intent`: the closure then holds only the hash and key, so the source's
      // `Intent` can be collected once its planned intent is made.
      return (hash ??= hashIntent(this.op, this.params, hashKey, this.aliases));
    },
  };
}

/**
 * The one place a row is found `unchanged`. A full run (docs/sync-engine.md, "Full runs")
 * plans such a row as if its hash were lost: an update when the id map knows the object (a
 * user the organiser removed by hand answers the PUT with 404 and is created again), a
 * create otherwise (links: an add of a link that is there is done, §4.4). A changed row
 * stays an update (a speaker link's new type is removed and added again). Check-ins stay
 * unchanged: §4.1 has nothing to find a posted one by, so a second POST is a second check-in.
 */
function actionFor(
  intent: Intent,
  previous: string | undefined,
  hash: string | undefined,
  known: KnownIds,
  full: boolean,
): PlannedAction {
  if (previous !== undefined && previous !== hash) return 'update';
  if (previous !== undefined && (!full || intent.kind === 'check_in')) return 'unchanged';
  // An object the id map knows (synced by an earlier run whose hash was lost, or failed
  // after being created) is updated rather than created again.
  return known.ids.get(intent.kind)?.has(intent.key) ? 'update' : 'create';
}

function duplicateResult(intent: Intent, first: Intent['origin'] | undefined): RowResult {
  const firstAt = first ? `${first.source} ${describeOrigin(first)}` : 'an earlier row';
  return {
    kind: intent.kind,
    // Results are unique per (run, kind, key): the duplicate gets its own key so that both rows
    // stay visible in the report.
    key: `${intent.key}#row${intent.origin.row}`,
    action: 'failed',
    origin: intent.origin,
    errorCode: CODE.EVSYNC_DUPLICATE_KEY,
    message: `${intent.kind} "${intent.key}" appears again; ${firstAt} is the one synced. Remove or fix the duplicate row.`,
    params: intent.params,
  };
}
