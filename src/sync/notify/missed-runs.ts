import type { Ledger } from '../../ledger/ledger.js';
import type { RunRecord } from '../../model/run-record.js';
import { wallClock, wallMinute } from '../../time/zoned-minute.js';

/** Runs of a job that did not do their work, since a moment: what a night missed. */
export interface MissedRuns {
  /** Per status (`aborted`, `failed`), oldest first within the span. */
  byStatus: Array<{ status: string; count: number }>;
  count: number;
  first: Date;
  last: Date;
}

/** More are not read: a span of more failing runs is told as "200 or more". */
const LIMIT = 200;

/**
 * The job's runs that ended `failed` or `aborted` and started at or after `since` (newest
 * `LIMIT`): "4 aborted since 22:42" in `evsync status`, "what was missed" in a "back to
 * normal" notice. Undefined when there are none.
 */
export async function missedRuns(
  ledger: Ledger,
  jobName: string,
  since: Date,
  conferenceId = ledger.conference?.id,
): Promise<MissedRuns | undefined> {
  const runs = await ledger.listRuns(LIMIT, {
    jobName,
    since,
    statuses: ['failed', 'aborted'],
    // The job's runs in this conference only: its notices are per conference (migration 13).
    ...(conferenceId === undefined ? {} : { conferenceId }),
  });
  if (runs.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const run of runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
  const starts = runs.map((run: RunRecord) => run.startedAt.getTime());
  return {
    byStatus: [...counts].map(([status, count]) => ({ status, count })),
    count: runs.length,
    first: new Date(Math.min(...starts)),
    last: new Date(Math.max(...starts)),
  };
}

/** `4 runs aborted from 22:42 to 22:46`, `1 run failed at 22:42`, `3 aborted and 1 failed from …`. */
export function describeMissed(missed: MissedRuns, zone: string): string {
  const what = missed.byStatus.map(({ status, count }) => `${count} ${status}`).join(' and ');
  const noun = missed.count === 1 ? 'run' : 'runs';
  const words =
    missed.byStatus.length === 1
      ? `${missed.count}${missed.count >= LIMIT ? ' or more' : ''} ${noun} ${missed.byStatus[0]!.status}`
      : `${missed.count} ${noun}: ${what},`;
  const sameDay = wallMinute(missed.first, zone).slice(0, 10) === wallMinute(missed.last, zone).slice(0, 10);
  const to = sameDay ? wallClock(missed.last, zone) : wallMinute(missed.last, zone);
  return missed.count === 1 || wallMinute(missed.first, zone) === wallMinute(missed.last, zone)
    ? `${words} at ${wallClock(missed.first, zone)}`
    : `${words} from ${wallClock(missed.first, zone)} to ${to}`;
}
