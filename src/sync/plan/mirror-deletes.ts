import type { IntentKind } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { isParentKind } from '../../model/intent.js';
import { isRowPlaceKey, repeatedRowKey } from '../../model/row-origin.js';
import type { DeleteThreshold } from '../job-file.js';
import { allowedDeletes } from '../job-file.js';
import { DeleteThresholdError, type ThresholdWhen } from './delete-threshold-error.js';
import { isLinkKind, SharedLinks, type LinkKind } from './link-pairs.js';
import type { DeleteCount, HeldDeletes, RowResult } from './sync-plan.js';

/**
 * Kinds that mirror mode may delete. Check-ins cannot be removed through the API, and a
 * schedule "delete" clears the user's schedule.
 */
export const DELETABLE_KINDS: readonly IntentKind[] = [
  'user',
  'event',
  'speaker',
  'schedule',
  'rsvp',
  'contact',
];

/** The keys of one kind a run's sources yielded: a `Set`, or a compact registry of a streamed plan. */
export interface KeySet {
  has(key: string): boolean;
}

export interface MirrorDeleteInput {
  /** Keys of this run per kind. Only kinds the run produced are mirrored: an empty feed deletes nothing. */
  seen: ReadonlyMap<IntentKind, KeySet>;
  /** Rows that never became an intent: failed ones keep their key, or hold back every delete. */
  rowResults?: readonly RowResult[];
  /** What those rows say, when gathered already (a streamed plan): replaces `rowResults`. */
  failed?: FailedRowKeys;
  knownKeys: (kind: IntentKind) => Promise<readonly string[]>;
  /** The id map of users and events: a gone key whose record a kept key maps to is retired. */
  ids?: ReadonlyMap<IntentKind, ReadonlyMap<string, number>>;
  /**
   * Of these keys, those with a synced hash in the conference, any job's (`Ledger.hashesOf`):
   * a key of a gone key's record that no source of this job has keeps the record when another
   * job syncs it; with nothing synced anywhere it is a merged person's other client_id, which
   * goes with the record. Absent, every such key keeps the record.
   */
  syncedAnywhere?: (kind: IntentKind, keys: readonly string[]) => Promise<ReadonlySet<string>>;
  /**
   * The keys of links and schedules the sources yielded (`seen` may keep only their hashes):
   * a gone key that names the same platform records as one of them is retired.
   */
  liveLinks?: (kind: LinkKind) => Iterable<string>;
  threshold: DeleteThreshold;
  force: boolean;
  /** When the threshold is met (`DeleteThresholdError`): a streamed run plans at the end, after its upserts; `evsync plan` sends nothing. */
  when?: ThresholdWhen;
  /**
   * The name and e-mail the ledger last sent for some keys of a kind (`labelsOf`): the
   * first deletes of each kind are shown by them in the plan and the threshold message.
   */
  labels?: (kind: IntentKind, keys: readonly string[]) => Promise<Map<string, string>>;
}

/** Deletes per kind shown with the name and e-mail last sent (the plan shows 3 examples). */
export const LABELLED_DELETES = 5;

/** The `labels` map key of a kind's key. */
export function labelId(kind: IntentKind, key: string): string {
  return `${kind}\u0000${key}`;
}

export interface MirrorDeletes {
  deletes: PlannedIntent[];
  counts: DeleteCount[];
  /** `labelId(kind, key)` → `Ann One <ann@example.org>`, for the first deletes of each kind. */
  labels: Map<string, string>;
  /** Set (and `deletes` empty) when failed rows without a readable key held the deletes back. */
  held?: HeldDeletes;
}

/** What failed rows say about deletes: keys they keep, and those whose key could not be read. */
export interface FailedRowKeys {
  kept: Map<IntentKind, Set<string>>;
  unreadable: RowResult[];
}

/**
 * A row still in the source is never deleted because it failed the mapping: its key, when
 * read, is kept like a valid row's. A failed row keyed only by its place (`@<source>:<row>`,
 * a row that failed before its key was read, or whose key was not passed on) could be any
 * object the ledger knows, of any kind its mapping yields (a Sessionize row yields an
 * event, a user and a speaker link), so it is listed as unreadable. A duplicate row left
 * out or replaced keeps its key too (its user may be the winner's platform user). Rows a
 * `when:` skipped are left out on purpose and keep nothing: mirror mode removes them.
 */
export function failedRowKeys(rowResults: readonly RowResult[]): FailedRowKeys {
  const failed: FailedRowKeys = { kept: new Map(), unreadable: [] };
  for (const row of rowResults) addFailedRow(failed, row);
  return failed;
}

/** Adds one row's keys to `failed` (see {@link failedRowKeys}); a streamed plan adds rows as they come. */
export function addFailedRow(failed: FailedRowKeys, row: RowResult): void {
  if (row.keptKeys !== undefined) {
    for (const { kind, key } of row.keptKeys) {
      let keys = failed.kept.get(kind);
      if (!keys) failed.kept.set(kind, (keys = new Set()));
      keys.add(key);
    }
  } else if (hasUnreadableKey(row)) failed.unreadable.push(row);
}

/**
 * A failed row keyed by its client_id (`collect/collect-intents.ts`, `failedRowKey`) whose
 * key a valid row of the run also has (`has`): keyed `<key>#row<n>` instead, so that its
 * result and the intent's do not take each other's place. Its kept keys stay as they are.
 */
export function keyApartFromIntents(
  row: RowResult,
  has: (kind: IntentKind, key: string) => boolean,
): RowResult {
  if (row.action !== 'failed' || row.origin === null || isRowPlaceKey(row.key) || !has(row.kind, row.key))
    return row;
  return { ...row, key: repeatedRowKey(row.key, row.origin.row) };
}

/** A failed row named by its place (`rowPlaceKey`: it has no key of its own) and no kept key. */
export function hasUnreadableKey(row: RowResult): boolean {
  return row.action === 'failed' && row.keptKeys === undefined && isRowPlaceKey(row.key);
}

/**
 * What the ledger knows and the source no longer has, less the keys of rows that failed;
 * nothing at all when a failed row's key could not be read. Checked per kind against
 * `delete_threshold`, so that a truncated users.csv cannot hide behind a complete
 * sessions.csv; any kind over it aborts the whole run before a single call.
 */
export async function planMirrorDeletes(input: MirrorDeleteInput): Promise<MirrorDeletes> {
  const deletes: PlannedIntent[] = [];
  const counts: DeleteCount[] = [];
  const failed = input.failed ?? failedRowKeys(input.rowResults ?? []);
  const links = new SharedLinks(
    (kind) => withKept(input.liveLinks?.(kind) ?? [], failed.kept.get(kind)),
    (kind, key) => input.ids?.get(kind)?.get(key),
  );
  for (const kind of DELETABLE_KINDS) {
    const seen = input.seen.get(kind);
    if (!seen) continue;
    const kept = failed.kept.get(kind);
    const known = await input.knownKeys(kind);
    const gone = known.filter((key) => !seen.has(key) && !kept?.has(key));
    const records = isParentKind(kind)
      ? await sharedRecords(kind, input.ids?.get(kind), seen, kept, gone, input.syncedAnywhere)
      : undefined;
    const shared = records?.shared;
    let retired = 0;
    for (const key of gone) {
      // A key the source dropped whose platform record (a user, an event, or what a link
      // joins) a key still in the source maps to: the ledger forgets it (`retire`), nothing is sent.
      const id = shared ? input.ids?.get(kind)?.get(key) : undefined;
      const retire =
        shared !== undefined
          ? id !== undefined && shared.has(id)
          : isLinkKind(kind) && links.sharedWith(kind, key) !== undefined;
      const aliases = id === undefined ? undefined : records?.aliases.get(id);
      if (!retire) deletes.push(aliases ? { ...deleteIntent(kind, key), aliases } : deleteIntent(kind, key));
      else {
        deletes.push({ ...deleteIntent(kind, key), plannedAction: 'retire' });
        retired += 1;
      }
    }
    counts.push({
      kind,
      deletes: gone.length - retired,
      known: known.length,
      allowed: allowedDeletes(input.threshold, known.length),
    });
  }
  if (failed.unreadable.length > 0) {
    // Retiring only makes the ledger forget a key, but it waits with the deletes all the same.
    // Deleting nothing is always safe; the threshold is not checked against deletes not made.
    const first = failed.unreadable[0]?.origin ?? null;
    return {
      deletes: [],
      counts: [],
      labels: new Map(),
      held: { counts, rows: failed.unreadable.length, first },
    };
  }
  const labels = await firstLabels(deletes, input.labels);
  const over = counts.filter((c) => c.deletes > c.allowed);
  if (over.length > 0 && !input.force) {
    const first = (kind: IntentKind): string[] =>
      deletes
        .filter((item) => item.kind === kind && item.plannedAction === 'delete')
        .slice(0, LABELLED_DELETES)
        .map((item) => {
          const label = labels.get(labelId(kind, item.key));
          return label === undefined ? item.key : `${item.key} (${label})`;
        });
    throw new DeleteThresholdError(over, describeThreshold(input.threshold), input.when, first);
  }
  return { deletes, counts, labels };
}

/** The name and e-mail last sent for the first deletes of each kind (never a secret: stored redacted). */
async function firstLabels(
  deletes: readonly PlannedIntent[],
  labelsOf: MirrorDeleteInput['labels'],
): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  if (labelsOf === undefined) return labels;
  const firstKeys = new Map<IntentKind, string[]>();
  for (const item of deletes) {
    if (item.plannedAction !== 'delete') continue;
    const keys = firstKeys.get(item.kind) ?? [];
    if (keys.length < LABELLED_DELETES) firstKeys.set(item.kind, [...keys, item.key]);
  }
  for (const [kind, keys] of firstKeys)
    for (const [key, label] of await labelsOf(kind, keys)) labels.set(labelId(kind, key), label);
  return labels;
}

export function describeThreshold(threshold: DeleteThreshold): string {
  return 'percent' in threshold ? `${threshold.percent}%` : `${threshold.count} objects`;
}

/**
 * Platform ids of the keys that still stand for a record, to the key: those the source
 * still has (seen or kept by a failed row), and those of another job. The id map holds one
 * platform record for several keys when a person was re-keyed in the source, or when two
 * jobs sync one person under their own keys (an attendee who is also a speaker), each
 * found by e-mail (docs/sync-engine.md, "Mirror mode and re-keyed records"). A key in the
 * id map that the source no longer has and this job does not drop (`gone`) is not this
 * job's: the speakers job still syncs that person, who must not leave the conference
 * because the attendees job dropped its own key.
 */
async function sharedRecords(
  kind: IntentKind,
  ids: ReadonlyMap<string, number> | undefined,
  seen: KeySet,
  kept: ReadonlySet<string> | undefined,
  gone: readonly string[],
  syncedAnywhere: MirrorDeleteInput['syncedAnywhere'],
): Promise<{ shared: Map<number, string>; aliases: Map<number, string[]> }> {
  const shared = new Map<number, string>();
  const aliases = new Map<number, string[]>();
  if (!ids) return { shared, aliases };
  // Only the records of gone keys are asked about: sets the size of the deletes, not of the job.
  const goneKeys = new Set(gone);
  const goneIds = new Set<number>();
  for (const key of gone) {
    const id = ids.get(key);
    if (id !== undefined) goneIds.add(id);
  }
  // The id map is walked, not the source's keys: a streamed plan keeps only their hashes.
  const others: Array<[string, number]> = [];
  for (const [key, id] of ids) {
    if (seen.has(key) || kept?.has(key) === true) {
      if (!shared.has(id)) shared.set(id, key);
    } else if (goneIds.has(id) && !goneKeys.has(key)) others.push([key, id]);
  }
  // Another key of a gone key's record that this job's sources do not have: another job's
  // keeps the record; a merged person's other client_id, synced under the gone key only,
  // leaves with it (its id map entry too). Such keys are few: asked in one read.
  const synced =
    others.length > 0 && syncedAnywhere
      ? await syncedAnywhere(
          kind,
          others.map(([key]) => key),
        )
      : undefined;
  for (const [key, id] of others) {
    if (synced === undefined || synced.has(key)) {
      if (!shared.has(id)) shared.set(id, key);
    } else aliases.set(id, [...(aliases.get(id) ?? []), key]);
  }
  return { shared, aliases };
}

function* withKept(keys: Iterable<string>, kept: ReadonlySet<string> | undefined): Iterable<string> {
  yield* keys;
  if (kept) yield* kept;
}

function deleteIntent(kind: IntentKind, key: string): PlannedIntent {
  return {
    kind,
    key,
    op: 'remove',
    plannedAction: 'delete',
    params: {},
    origin: null,
    dependsOn: [],
    hash: '',
  };
}

/** The result of a row whose unreadable key held back the deletes says so, in the report. */
export function noteHeldDeletes(row: RowResult, held: HeldDeletes): RowResult {
  const would = held.counts.reduce((sum, count) => sum + count.deletes, 0);
  return {
    ...row,
    message: `${row.message} (Mirror mode deleted nothing in this run, ${would} planned: this row failed before its key could be read, so it may be one of them.)`,
  };
}
