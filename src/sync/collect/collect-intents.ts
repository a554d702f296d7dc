import { CODE } from '../../errors/codes.js';
import type { Intent } from '../../model/intent.js';
import { rowPlaceKey } from '../../model/row-origin.js';
import { loadMapping } from '../../mapping/load-mapping.js';
import type { LoadedMapping } from '../../mapping/loaded-mapping.js';
import { mapSource } from '../../mapping/map-source.js';
import type { DuplicateItem, MappedItem } from '../../mapping/mapped-item.js';
import type { Logger } from '../../log/logger.js';
import { openSource } from '../../sources/open-source.js';
import type { LoadedJob } from '../job-file.js';
import type { RowResult } from '../plan/sync-plan.js';
import { scheduleToRsvps } from './schedule-to-rsvps.js';

export interface CollectedIntents {
  /** One intent per `(kind, key)`, in source order. */
  intents: Intent[];
  /** Rows that will not be sent, each with its reason. */
  rowResults: RowResult[];
}

export interface CollectOptions {
  vendor: string;
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
}

/**
 * Reads every step's source through its mapping. Invalid and skipped rows become results,
 * never errors: one bad row does not stop the run. A step with `schedule_mode: rsvp` turns
 * each schedule into one RSVP per event (additive feeds).
 */
export async function collectIntents(job: LoadedJob, options: CollectOptions): Promise<CollectedIntents> {
  const byKey = new Map<string, Intent>();
  const rowResults: RowResult[] = [];
  for (const step of job.steps) {
    const mapping = await loadMapping(step.mapping, { baseDir: job.baseDir, vendor: options.vendor });
    const source = openSource(step.source, {
      baseDir: job.baseDir,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
    const accept = (intent: Intent): void => {
      const expanded =
        step.schedule_mode === 'rsvp' && intent.kind === 'schedule' ? scheduleToRsvps(intent) : [intent];
      for (const one of expanded) byKey.set(`${one.kind}\u0000${one.key}`, one);
    };
    // A replaced row is this step's: another step's intent of the same key stays.
    const drop = (replaced: { kind: Intent['kind']; key: string }, source: string): void => {
      const id = `${replaced.kind}\u0000${replaced.key}`;
      if (byKey.get(id)?.origin.source === source) byKey.delete(id);
    };
    const onHeader = (report: { missing: string[][]; unused: string[] }): void => {
      if (report.missing.length > 0) {
        options.logger?.info(
          {
            source: source.description,
            mapping: mapping.name,
            missing: report.missing.map((a) => a.join('|')),
          },
          'source lacks columns the mapping reads; their values read as empty',
        );
      }
    };
    for await (const item of mapSource(source, mapping, { onHeader })) {
      for (const result of resultsOf(item, mapping, accept, drop)) rowResults.push(result);
    }
  }
  return { intents: [...byKey.values()], rowResults };
}

/** The row results of a mapped item (none for a valid row), accepting its intents. */
function resultsOf(
  item: MappedItem,
  mapping: LoadedMapping,
  accept: (intent: Intent) => void,
  drop: (replaced: { kind: Intent['kind']; key: string }, source: string) => void,
): RowResult[] {
  const kind = mapping.kinds[0] ?? 'user';
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
          errorCode: CODE.EVSYNC_ROW_SKIPPED,
          message: item.reason,
        },
      ];
    case 'invalid':
      return [
        {
          kind,
          key: rowKey,
          action: 'failed',
          origin: item.origin,
          errorCode: item.problems[0]?.code ?? CODE.EVSYNC_ROW_INVALID,
          message: item.problems.map((problem) => problem.message).join('; '),
          // Mirror mode keeps what a failed row still names, instead of deleting it.
          ...(item.keys ? { keptKeys: item.keys } : {}),
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

// A duplicate row is still in the source: mirror mode keeps its keys (`keptKeys`). Its
// user may be the same platform user as the row that won (one user per e-mail).

function repeatLeftOut(item: DuplicateItem): RowResult {
  return {
    kind: item.kind,
    key: `${item.key}#row${item.origin.row}`,
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
    key: `${replaced.key}#row${replaced.row}`,
    action: 'skipped',
    origin: { source: item.origin.source, row: replaced.row },
    errorCode: CODE.EVSYNC_DUPLICATE_ROW,
    message: `row ${replaced.row}: replaced by a later row (on_duplicate: last): ${item.message}`,
    keptKeys: [{ kind: replaced.kind, key: replaced.key }],
  };
}
