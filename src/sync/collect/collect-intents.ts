import { CODE } from '../../errors/codes.js';
import { leftOutParams } from '../phases/left-out-parents.js';
import type { Intent } from '../../model/intent.js';
import { repeatedRowKey, rowPlaceKey } from '../../model/row-origin.js';
import { loadMapping } from '../../mapping/load-mapping.js';
import type { LoadedMapping } from '../../mapping/loaded-mapping.js';
import { mapSource, mergeHeaderReports } from '../../mapping/map-source.js';
import { unmappedColumnsNotes } from '../../mapping/unmapped-columns-note.js';
import {
  failingProblem,
  type DuplicateItem,
  type HeaderReport,
  type InvalidItem,
  type MappedItem,
  type SyncedHashOf,
} from '../../mapping/mapped-item.js';
import type { Logger } from '../../log/logger.js';
import { openSource } from '../../sources/open-source.js';
import { yieldedNoRows } from '../../sources/source-row.js';
import { stepLabel, stepMappingOptions, type LoadedJob } from '../job-file.js';
import type { RowResult } from '../plan/sync-plan.js';
import { PeopleMerger, type MergeReport, type SharedAccounts } from './merge-people.js';
import { UsersApart } from './users-apart.js';
import { ReadNotices } from './read-notices.js';
import type { Erasures } from './erasures.js';
import type { StepRows } from './step-rows.js';
import { scheduleToRsvps } from './schedule-to-rsvps.js';

export interface CollectedIntents {
  /** One intent per `(kind, key)`, in source order (merged users last). */
  intents: Intent[];
  /** Rows that will not be sent, each with its reason. */
  rowResults: RowResult[];
  /** People merged across steps, when users of several steps were. */
  merged?: MergeReport;
}

export interface CollectOptions {
  vendor: string;
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
  /** Called once every source is read, when users of several steps were merged. */
  onMerge?: (report: MergeReport) => void;
  /** Called once a step's source is read, with how it decided who is who (`Source.identity`), if it did. */
  onIdentity?: (lines: readonly string[]) => void;
  /** Called once a step's source is read to its end, with the rows it yielded. */
  onStepRead?: (read: StepRows) => void;
  /**
   * The conference's tombstones: rows naming an erased person are suppressed
   * (`Erasures.load`, docs/privacy.md). Required, so that no reader of sources forgets them.
   */
  erasures: Erasures;
  /** A run's plan: see `MapSourceOptions.syncedHash`. */
  syncedHash?: SyncedHashOf;
  /**
   * The keys earlier runs merged into one platform user (`Ledger.keysSharingIds`): a merge
   * refuses the people the sources split them between (`PeopleMerger`). A plan, a run and
   * a retry pass it; an audit, which compares the sources with the platform, does not.
   */
  sharedAccounts?: SharedAccounts;
}

/**
 * Reads every step's source through its mapping. Invalid and skipped rows become results,
 * never errors: one bad row does not stop the run. A step with `schedule_mode: rsvp` turns
 * each schedule into one RSVP per event (additive feeds).
 */
export async function collectIntents(job: LoadedJob, options: CollectOptions): Promise<CollectedIntents> {
  const byKey = new Map<string, Intent>();
  const rowResults: RowResult[] = [];
  let merged: MergeReport | undefined;
  const onMerge = (report: MergeReport): void => {
    merged = report;
    options.onMerge?.(report);
  };
  for await (const row of streamCollected(job, { ...options, onMerge })) {
    // A later step's intent of a key takes the earlier one's place.
    for (const intent of row.intents) byKey.set(`${intent.kind}\u0000${intent.key}`, intent);
    for (const result of row.rowResults) rowResults.push(result);
  }
  return { intents: [...byKey.values()], rowResults, ...(merged ? { merged } : {}) };
}

/** What one mapped row adds to a streamed run: its intents, or its result. */
export interface CollectedRow {
  intents: Intent[];
  rowResults: RowResult[];
}

/**
 * Every step's source read through its mapping, row by row, for a plan that streams
 * (docs/sync-engine.md, "Memory"). A step whose mapping says `on_duplicate: last` is read
 * whole first, its intents held by key, so a replaced row is never planned. A row of
 * another step with a key already planned is planned again after it (the earlier one may
 * be sent already), and its content is what the platform keeps; but for a user, whose
 * repeat fails here (`UsersApart`).
 *
 * When two steps or more yield users, users wait for every step to be read and come last,
 * one per person (`PeopleMerger`; docs/sync-engine.md, "One person, many sources"), unless
 * the job says `merge: { users: false }`. They are still the first phase sent: links wait
 * for the users phase to drain.
 */
export async function* streamCollected(
  job: LoadedJob,
  options: CollectOptions,
): AsyncGenerator<CollectedRow> {
  for await (const row of collectRows(job, options)) {
    const kept = options.erasures.filter(row);
    if (kept.intents.length > 0 || kept.rowResults.length > 0) yield kept;
  }
}

/** {@link streamCollected} before the erasures are applied. */
async function* collectRows(job: LoadedJob, options: CollectOptions): AsyncGenerator<CollectedRow> {
  const mappings: LoadedMapping[] = [];
  for (const step of job.steps)
    mappings.push(
      await loadMapping(step.mapping, {
        baseDir: job.baseDir,
        vendor: options.vendor,
        ...stepMappingOptions(step),
      }),
    );
  const merger = peopleMerger(job, mappings, options);
  // The keys failed rows are recorded under, so that a second failed row of a key gets its own.
  const failedKeys = new Set<string>();
  const apart = usersApart(job, mappings, failedKeys);
  const notices = new ReadNotices();
  try {
    for (const index of job.steps.keys()) {
      for await (const row of readStep(job, index, mappings[index]!, options, failedKeys, notices)) {
        if (!merger) {
          yield apart ? apart.filter(row, index) : row;
          continue;
        }
        const rest: Intent[] = [];
        for (const intent of row.intents) if (!(await merger.take(index, intent))) rest.push(intent);
        if (rest.length === row.intents.length) yield row;
        else if (rest.length > 0 || row.rowResults.length > 0)
          yield { intents: rest, rowResults: row.rowResults };
      }
    }
    notices.log(options.logger);
    if (!merger) return;
    for await (const users of merger.merged()) yield users;
    options.onMerge?.(merger.report());
  } finally {
    await merger?.dispose();
  }
}

/** The merger of a job whose users come from two steps or more, unless it opted out. */
export function peopleMerger(
  job: Pick<LoadedJob, 'steps' | 'merge'>,
  mappings: readonly Pick<LoadedMapping, 'kinds'>[],
  options: Pick<CollectOptions, 'vendor' | 'sharedAccounts'>,
): PeopleMerger | undefined {
  const settings = job.merge?.users;
  if (settings === false || !usersFromSeveralSteps(mappings)) return undefined;
  return new PeopleMerger(job.steps, settings, options.vendor, options.sharedAccounts);
}

function usersFromSeveralSteps(mappings: readonly Pick<LoadedMapping, 'kinds'>[]): boolean {
  return mappings.filter((mapping) => mapping.kinds.includes('user')).length >= 2;
}

/** The users of a job whose users come from two steps or more, kept apart (`merge: { users: false }`). */
function usersApart(
  job: Pick<LoadedJob, 'steps' | 'merge'>,
  mappings: readonly Pick<LoadedMapping, 'kinds'>[],
  failedKeys: Set<string>,
): UsersApart | undefined {
  if (job.merge?.users !== false || !usersFromSeveralSteps(mappings)) return undefined;
  return new UsersApart(job.steps, failedKeys);
}

/** One step's source read through its mapping (see {@link streamCollected}). */
async function* readStep(
  job: LoadedJob,
  index: number,
  mapping: LoadedMapping,
  options: CollectOptions,
  failedKeys: Set<string>,
  notices: ReadNotices,
): AsyncGenerator<CollectedRow> {
  const step = job.steps[index]!;
  const source = openSource(step.source, {
    baseDir: job.baseDir,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  // A schedule source shows one header per record type: a column is missing only when
  // none of them has it, so the headers are merged before anything is said.
  const headers: HeaderReport[] = [];
  const onHeader = (report: HeaderReport): void => void headers.push(report);
  // With `on_duplicate: last` a row may be replaced by any later one: such a step is read
  // whole before its intents are planned, so that a replaced row is never sent.
  const held = mapping.onDuplicate === 'last' ? new Map<string, Intent>() : undefined;
  let rows = 0;
  const mappingNotes: string[] = [];
  const onNotes = (notes: readonly string[]): void => void mappingNotes.push(...notes);
  const mapOptions = options.syncedHash
    ? { onHeader, onNotes, syncedHash: options.syncedHash }
    : { onHeader, onNotes };
  for await (const item of mapSource(source, mapping, mapOptions)) {
    // A grouped schedule comes after the last row: it is no row of its own.
    if (!('groupedRows' in item) || item.groupedRows === undefined) rows += 1;
    const intents: Intent[] = [];
    const accept = (intent: Intent): void => {
      const expanded =
        step.schedule_mode === 'rsvp' && intent.kind === 'schedule' ? scheduleToRsvps(intent) : [intent];
      for (const one of expanded) {
        if (held) held.set(`${one.kind}\u0000${one.key}`, one);
        else intents.push(one);
      }
    };
    // Only `on_duplicate: last` replaces rows, and its intents are held until the step ends.
    const drop = (gone: { kind: Intent['kind']; key: string }): void =>
      void held?.delete(`${gone.kind}\u0000${gone.key}`);
    const rowResults = resultsOf(item, mapping, accept, drop, failedKeys);
    if (intents.length > 0 || rowResults.length > 0) yield { intents, rowResults };
  }
  if (held) yield { intents: [...held.values()], rowResults: [] };
  notices.addNotes(source.description, [...(source.notes?.() ?? []), ...mappingNotes]);
  const identity = source.identity?.() ?? [];
  if (identity.length > 0) options.onIdentity?.(identity);
  const header = mergeHeaderReports(headers);
  notices.addMissing(source.description, mapping.name, header?.missing ?? []);
  notices.addUnmapped(source.description, mapping.name, unmappedColumnsNotes(header));
  // A header-only file or a query that found nothing is said, naming it (`min_rows` can stop the run).
  if (rows === 0)
    options.logger?.warn(
      { step: index + 1, source: source.description, mapping: mapping.name },
      `${stepLabel(step, index)}: ${yieldedNoRows(source.description)}`,
    );
  options.onStepRead?.({ step: index, source: source.description, rows });
}

/**
 * What a streamed run checks before it creates the run and sends anything (README, exit
 * codes: a path that does not exist is found before anything is sent): every step's mapping
 * loads, and every CSV file or pretix JSON export can be opened and its first row read.
 * Queries and schedule exports are read only by the run itself (a query would run twice).
 */
export async function checkSteps(job: LoadedJob, options: Pick<CollectOptions, 'vendor'>): Promise<void> {
  for (const step of job.steps) {
    await loadMapping(step.mapping, { baseDir: job.baseDir, vendor: options.vendor });
    if (!('csv' in step.source) && !('pretix_json' in step.source)) continue;
    const rows = openSource(step.source, { baseDir: job.baseDir }).rows()[Symbol.asyncIterator]();
    try {
      await rows.next();
    } finally {
      await rows.return?.();
    }
  }
}

/** A row the mapping's conditions left out on purpose (a cancelled ticket). */
export const ROW_SKIPPED = CODE.EVSYNC_ROW_SKIPPED;
/**
 * A row left out because a value it needs is empty (`present: true`): data lost, which
 * counts against the exit code (see docs/mapping.md, Conditions).
 */
export const ROW_INCOMPLETE = CODE.EVSYNC_ROW_INCOMPLETE;

/** The row results of a mapped item (none for a valid row), accepting its intents. */
function resultsOf(
  item: MappedItem,
  mapping: LoadedMapping,
  accept: (intent: Intent) => void,
  drop: (replaced: { kind: Intent['kind']; key: string }, source: string) => void,
  failedKeys: Set<string>,
): RowResult[] {
  // A row of a many-kind mapping (a schedule) counts under the kind it came closest to.
  const kind =
    item.type === 'skipped' || item.type === 'invalid'
      ? (item.kind ?? mapping.kinds[0] ?? 'user')
      : (mapping.kinds[0] ?? 'user');
  const rowKey = rowPlaceKey(item.origin);
  switch (item.type) {
    case 'intents':
      item.intents.forEach(accept);
      return [];
    case 'grouped':
      return [];
    case 'skipped':
      return [
        {
          kind,
          key: rowKey,
          action: 'skipped',
          origin: item.origin,
          errorCode: item.code ?? (item.incomplete ? ROW_INCOMPLETE : ROW_SKIPPED),
          message: item.reason,
          // Not kept from mirror deletes: recorded so that links naming them are skipped on purpose.
          ...(item.keys ? { params: leftOutParams(item.keys) } : {}),
        },
      ];
    case 'invalid':
      return [
        {
          kind,
          key: failedRowKey(item, kind, failedKeys) ?? rowKey,
          action: 'failed',
          origin: item.origin,
          errorCode: failingProblem(item)?.code ?? CODE.EVSYNC_ROW_INVALID,
          message: item.problems.map((problem) => problem.message).join('; '),
          // Mirror mode keeps what a failed row still names, instead of deleting it.
          ...(item.keys ? { keptKeys: item.keys } : {}),
          // What a person finds the row by (a name, an e-mail); the ledger stores it redacted.
          ...(item.params ? { params: item.params } : {}),
        },
      ];
    case 'duplicate':
      for (const replaced of item.replaces ?? []) drop(replaced, item.origin.source);
      item.intents.forEach(accept);
      return item.policy === 'first'
        ? [repeatLeftOut(item)]
        : (item.replaces ?? []).map((r) => replacedBy(item, r));
  }
}

/**
 * The key a failed row is recorded under: its client_id (its key of the row's kind) when
 * the mapping could read it, so that the report, the dashboard and `evsync retry
 * --client-id` find the person (docs/sync-engine.md, "Rows are found by the person"); its
 * place stays in the origin. A row that repeats a key (`MAPPING_DUPLICATE`), or a second
 * failed row of one key, is `<key>#row<n>` as other repeated rows are: one result per key
 * and run. `undefined`: the key could not be read, the row is named by its place.
 */
export function failedRowKey(
  item: InvalidItem,
  kind: Intent['kind'],
  failedKeys: Set<string>,
): string | undefined {
  if (item.groupedRows !== undefined) return undefined;
  const key = item.keys?.find((one) => one.kind === kind)?.key;
  if (key === undefined) return undefined;
  const id = `${kind}\u0000${key}`;
  if (item.problems.some((problem) => REPEATS_A_KEY.has(problem.code)) || failedKeys.has(id))
    return repeatedRowKey(key, item.origin.row);
  failedKeys.add(id);
  return key;
}

/** Codes of a row that repeats an earlier row's key: the key's result is the earlier row's. */
const REPEATS_A_KEY: ReadonlySet<string> = new Set([CODE.MAPPING_DUPLICATE, CODE.MAPPING_SHARED_KEY]);

// A duplicate row is still in the source: mirror mode keeps its keys (`keptKeys`). Its
// user may be the same platform user as the row that won (one user per e-mail).

function repeatLeftOut(item: DuplicateItem): RowResult {
  return {
    kind: item.kind,
    key: repeatedRowKey(item.key, item.origin.row),
    action: 'skipped',
    origin: item.origin,
    errorCode: CODE.EVSYNC_DUPLICATE_ROW,
    message: item.message,
    keptKeys: [{ kind: item.kind, key: item.key }],
  };
}

function replacedBy(
  item: DuplicateItem,
  replaced: NonNullable<DuplicateItem['replaces']>[number],
): RowResult {
  return {
    kind: replaced.kind,
    key: repeatedRowKey(replaced.key, replaced.row),
    action: 'skipped',
    origin: { source: item.origin.source, row: replaced.row },
    errorCode: CODE.EVSYNC_DUPLICATE_ROW,
    message: `row ${replaced.row}: replaced by a later row (on_duplicate: last): ${item.message}`,
    keptKeys: [{ kind: replaced.kind, key: replaced.key }],
  };
}
