import type { Ledger } from '../../ledger/ledger.js';
import type { FlatParams } from '../../model/params.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { LinkKind, SharedLink } from '../plan/link-pairs.js';
import type { ClearingParams } from '../../platform/write-params/clear-params.js';
import type { IdCache } from './id-cache.js';
import type { CallCounter, ProcessOutcome } from './process-outcome.js';
import type { SyncPlatform } from './sync-platform.js';

export interface ProcessorContext {
  platform: SyncPlatform;
  ids: IdCache;
  /**
   * Resolves once the ledger durably notes that this intent's call is starting. Awaited
   * before a call that cannot be repeated or looked up (a check-in POST), so a resume
   * after a crash holds it back instead of posting it twice.
   */
  markSendStarted: (item: Pick<PlannedIntent, 'kind' | 'key'>) => Promise<void>;
  /**
   * Another key of this run's source whose user or event is the platform record `id`, if
   * any: a mirror delete of `key` then retires it instead of removing that record.
   */
  sharedWith?: (kind: 'user' | 'event', key: string, id: number) => Promise<string | undefined>;
  /**
   * Whether this run's source has the user or event `key` (as far as it has been read):
   * a user found by e-mail that is such a key's account is not given to another person
   * (`refuseAnothersAccount`). Absent where the source is not at hand (a worker).
   */
  inSource?: (kind: 'user' | 'event', key: string) => boolean;
  /**
   * The user params the ledger last sent to `key`'s account (stored redacted,
   * `lastSentToAccounts`), if any: an update whose row now names another person is refused
   * (`refuseKeyOfAnother`). Absent, it is not checked.
   */
  lastSent?: (key: string) => Promise<FlatParams | undefined>;
  /**
   * The user params the ledger last sent for `key` when a run has removed the key since (a
   * mirror delete: no synced hash now), if any: a create under it, which the platform answers
   * with that person's account (it keeps the client_id), is refused when the row names another
   * person (`refuseKeyOfRemovedPerson`). Absent, it is not checked.
   */
  lastSentBeforeRemoval?: (key: string) => Promise<FlatParams | undefined>;
  /**
   * For a key the id map has, the user params the ledger last sent to its account when a run
   * deleted that account under another key (a merged person's other client_id keeps its
   * id-map row), if none of its keys is synced now (`Ledger.deletedAccountsLastSent`). Asked
   * only of keys with an id. Absent, it is not checked.
   */
  lastSentToDeletedAccount?: (key: string) => Promise<FlatParams | undefined>;
  /**
   * Another key of this run's source that names the same platform records as the link or
   * schedule `key` (a speaker re-keyed in the source), if any: its mirror delete then retires it.
   */
  sharedLink?: (kind: LinkKind, key: string) => Promise<SharedLink | undefined>;
  /**
   * The ledger's synced hash of the schedule `key`, if any: a schedule that would go short of
   * lost picks, as the platform has it already, is not sent again (`execute/execute-plan.ts`,
   * docs/sync-engine.md "Phases"). Absent, it is sent.
   */
  syncedSchedule?: (key: string) => Promise<string | undefined>;
}

/** {@link ProcessorContext.lastSent} read from `ledger`: a run's and a worker's alike. */
export function lastSentIn(
  ledger: Pick<Ledger, 'syncedParams' | 'accountsLastSent'>,
): NonNullable<ProcessorContext['lastSent']> {
  return async (key) => (await lastSentToAccounts(ledger, [key])).get(key);
}

/**
 * The user params the ledger last sent to each key: under the key, or, for a key with
 * nothing synced of its own, the newest synced under another client_id the id map gives
 * the same platform user. A merged person's other keys are such keys (the user was sent
 * under the first key), and a ticket of theirs handed on must still be told from its holder
 * (docs/sync-engine.md, "Who is who"). A key's own record comes first: an id map that a
 * platform reset made stale gives two people's keys one id.
 */
export async function lastSentToAccounts(
  ledger: Pick<Ledger, 'syncedParams' | 'accountsLastSent'>,
  keys: readonly string[],
): Promise<Map<string, FlatParams>> {
  const sent = await ledger.syncedParams('user', keys);
  const without = keys.filter((key) => !sent.has(key));
  if (without.length > 0)
    for (const [key, params] of await ledger.accountsLastSent('user', without)) sent.set(key, params);
  return sent;
}

/** {@link ProcessorContext.syncedSchedule} read from `ledger`: a run's and a worker's alike. */
export function syncedScheduleIn(
  ledger: Pick<Ledger, 'hashesOf'>,
): NonNullable<ProcessorContext['syncedSchedule']> {
  return async (key) => (await ledger.hashesOf('schedule', [key])).get(key);
}

/** {@link ProcessorContext.lastSentBeforeRemoval} read from `ledger`: a run's and a worker's alike. */
export function lastSentBeforeRemovalIn(
  ledger: Pick<Ledger, 'removedKeysLastSent'>,
): NonNullable<ProcessorContext['lastSentBeforeRemoval']> {
  return async (key) => (await ledger.removedKeysLastSent('user', [key])).get(key);
}

/** {@link ProcessorContext.lastSentToDeletedAccount} read from `ledger`: a run's and a worker's alike. */
export function lastSentToDeletedAccountIn(
  ledger: Pick<Ledger, 'deletedAccountsLastSent'>,
): NonNullable<ProcessorContext['lastSentToDeletedAccount']> {
  return async (key) => (await ledger.deletedAccountsLastSent('user', [key])).get(key);
}

/**
 * The params last sent under keys a run removed (`removedKeysLastSent`), then, for the rest,
 * under keys whose platform user a run deleted under another key (`deletedAccountsLastSent`:
 * a merged person's other client_ids). Only the first for a run's creates: a new key has no
 * id-map row for the second to find.
 */
export async function removedOrDeletedLastSent(
  ledger: Pick<Ledger, 'removedKeysLastSent' | 'deletedAccountsLastSent'>,
  keys: readonly string[],
): Promise<Map<string, FlatParams>> {
  const sent = await ledger.removedKeysLastSent('user', keys);
  const rest = keys.filter((key) => !sent.has(key));
  if (rest.length > 0)
    for (const [key, params] of await ledger.deletedAccountsLastSent('user', rest)) sent.set(key, params);
  return sent;
}

/**
 * Does one intent, idempotently: sending the same intent twice, or after a lost answer,
 * leaves the platform as sending it once. Throws only for failures; the caller turns them
 * into `failed` results.
 */
export type Processor = (
  item: PlannedIntent,
  context: ProcessorContext,
  counter: CallCounter,
) => Promise<ProcessOutcome>;

/**
 * How often a create is sent in all when its answer is lost and a look-up by client_id
 * does not find it: nothing arrived, so sending it again cannot make a duplicate. With one
 * request in twenty lost, five in a row fail a row about once in three million; three did
 * once in a few thousand, which a run of twenty sessions under such faults met.
 */
export const MAX_CREATE_TRIES = 5;

/** Whether the intent removes something (a mirror delete, or a source row saying "remove"). */
export function isRemoval(item: Pick<PlannedIntent, 'op' | 'plannedAction'>): boolean {
  return item.op === 'remove' || item.plannedAction === 'delete' || item.plannedAction === 'retire';
}

/**
 * A mirror delete of a user or event whose platform record a key still in the source maps
 * to (a person re-keyed by the registration system, found by e-mail and given the new
 * client_id): the record stays, and the ledger forgets the old key (docs/sync-engine.md).
 */
export async function retireShared(
  item: PlannedIntent,
  kind: 'user' | 'event',
  id: number | undefined,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<ProcessOutcome | undefined> {
  const other = id === undefined ? undefined : await context.sharedWith?.(kind, item.key, id);
  if (other === undefined && item.plannedAction !== 'retire') return undefined;
  context.ids.delete(kind, item.key);
  // Planned as a retire without a key of this run's source: another job's key is the record's.
  const still =
    other === undefined
      ? "another key's that this run does not remove (still in the source, or another job's)"
      : `"${other}", still in the source`;
  return counter.done('retired', {
    platformId: id ?? null,
    message: `not deleted: platform ${kind} ${id ?? '?'} is also ${still}; the ledger forgets this key`,
  });
}

/** How a result names the platform record of a link or schedule. */
const LINK_RECORDS: Record<LinkKind, string> = {
  speaker: 'speaker link',
  rsvp: 'RSVP',
  schedule: 'schedule',
  contact: 'contact',
};

/**
 * A mirror delete of a link or schedule whose platform records a key still in the source
 * names too (its user re-keyed, found by e-mail): the platform keeps them, and the ledger
 * forgets the old key, as {@link retireShared} does for users and events. A source row that
 * removes a link is no mirror delete, and is sent.
 */
export async function retireSharedLink(
  item: PlannedIntent,
  kind: LinkKind,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<ProcessOutcome | undefined> {
  if (item.plannedAction !== 'delete' && item.plannedAction !== 'retire') return undefined;
  const shared = await context.sharedLink?.(kind, item.key);
  if (shared === undefined && item.plannedAction !== 'retire') return undefined;
  const what = shared === undefined ? '' : ` (${shared.records})`;
  const still = shared === undefined ? 'a key still in the source' : `"${shared.key}", still in the source`;
  return counter.done('retired', {
    message: `not deleted: platform ${LINK_RECORDS[kind]}${what} is also ${still}; the ledger forgets this key`,
  });
}

/**
 * What an update cleared, and what the platform could not clear, for the row's result
 * (docs/sync-engine.md, "Cleared fields"); nothing when it cleared nothing.
 */
export function clearingNote(clearing: ClearingParams): { message?: string } {
  const parts: string[] = [];
  if (clearing.cleared.length > 0)
    parts.push(`cleared (empty in the source): ${clearing.cleared.join(', ')}`);
  for (const { name, reason } of clearing.notCleared)
    parts.push(
      `${name} is empty in the source but stays on the platform: ${reason}; change it there if needed`,
    );
  return parts.length > 0 ? { message: parts.join('; ') } : {};
}

/** Params without `client_id`, for calls that name the object by its platform id. */
export function withoutClientId(params: Record<string, string>): Record<string, string> {
  const { client_id: _ignored, ...rest } = params;
  return rest;
}
