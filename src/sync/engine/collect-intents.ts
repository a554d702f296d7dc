import type { Intent } from '../../mapping/intent.js';
import { loadMapping } from '../../mapping/load-mapping.js';
import type { LoadedMapping } from '../../mapping/loaded-mapping.js';
import { mapSource } from '../../mapping/map-source.js';
import type { MappedItem } from '../../mapping/mapped-item.js';
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
      const result = resultOf(item, mapping, accept);
      if (result) rowResults.push(result);
    }
  }
  return { intents: [...byKey.values()], rowResults };
}

function resultOf(
  item: MappedItem,
  mapping: LoadedMapping,
  accept: (intent: Intent) => void,
): RowResult | undefined {
  const kind = mapping.kinds[0] ?? 'user';
  // Rows that never became an intent have no key of their own: name them by where they are.
  const rowKey = `@${item.origin.source}:${item.origin.row}`;
  switch (item.type) {
    case 'intents':
      item.intents.forEach(accept);
      return undefined;
    case 'grouped':
      return undefined;
    case 'skipped':
      return {
        kind,
        key: rowKey,
        action: 'skipped',
        origin: item.origin,
        errorCode: 'EVSYNC_ROW_SKIPPED',
        message: item.reason,
      };
    case 'invalid':
      return {
        kind,
        key: rowKey,
        action: 'failed',
        origin: item.origin,
        errorCode: item.problems[0]?.code ?? 'EVSYNC_ROW_INVALID',
        message: item.problems.map((problem) => problem.message).join('; '),
        // Mirror mode keeps what a failed row still names, instead of deleting it.
        ...(item.keys ? { keptKeys: item.keys } : {}),
      };
    case 'duplicate':
      item.intents.forEach(accept);
      return item.policy === 'first'
        ? {
            kind: item.kind,
            key: `${item.key}#row${item.origin.row}`,
            action: 'skipped',
            origin: item.origin,
            errorCode: 'EVSYNC_DUPLICATE_ROW',
            message: item.message,
          }
        : undefined;
  }
}
