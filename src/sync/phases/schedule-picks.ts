import { CODE, type ErrorCode } from '../../errors/codes.js';
import type { FlatParams } from '../../model/params.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { hashIntent } from '../plan/params-hash.js';
import { isLoss, type MissingParent } from './dependency-gate.js';

/** How many left-out events a schedule's warning names before "… and N more". */
const NAMED = 5;

/** A schedule sent without some of its events, and the warning its result carries. */
export interface PartialSchedule {
  /** The schedule with the picks that exist, renumbered from 0; its hash is of those. */
  item: PlannedIntent;
  code: ErrorCode;
  warning: string;
}

/**
 * A user's whole schedule (§4.5 `PUT /event/schedule`) goes with the events that exist when
 * some of its picks are missing: the replacement takes the list it is given, so one cancelled
 * session must not freeze a person's schedule (docs/sync-engine.md, "Phases"). Undefined when
 * it cannot go at all (its user is missing, or it is not a schedule being set): the dependent
 * is then skipped as any other.
 *
 * `missing` are the gate's answers; an event that failed in this run but is known to the
 * platform (`hasId`) stays in the list: an update that failed leaves the event there.
 */
export function withoutMissingPicks(
  item: PlannedIntent,
  missing: readonly MissingParent[],
  hasId: (missing: MissingParent) => boolean,
): PartialSchedule | undefined {
  if (item.kind !== 'schedule' || item.op !== 'upsert') return undefined;
  if (missing.some((m) => m.parent.kind !== 'event')) return undefined;
  const dropped = missing.filter((m) => !(m.why === 'failed' && hasId(m)));
  const gone = new Set(dropped.map((m) => m.parent.clientId));
  const params: FlatParams = {};
  const picks: Array<[index: number, clientId: string]> = [];
  let total = 0;
  for (const name in item.params) {
    const value = item.params[name] ?? '';
    const index = /^event_client_ids\[(\d+)\]$/.exec(name)?.[1];
    if (index === undefined) params[name] = value;
    else {
      total += 1;
      if (!gone.has(value)) picks.push([Number(index), value]);
    }
  }
  picks.sort((a, b) => a[0] - b[0]);
  picks.forEach(([, clientId], n) => (params[`event_client_ids[${n}]`] = clientId));
  const named = dropped.slice(0, NAMED).map((m) => m.reason);
  if (dropped.length > NAMED) named.push(`and ${dropped.length - NAMED} more`);
  const left =
    dropped.length === 0
      ? ''
      : `sent without ${total - picks.length} of its ${total} events: ${named.join('; ')}`;
  return {
    // The synced hash is of what was sent: the next run sends the schedule again, whole
    // once the events are back, and says again which are still missing.
    item: { ...item, params, hash: dropped.length === 0 ? item.hash : hashIntent(item.op, params) },
    code: dropped.some((m) => isLoss(m.why))
      ? CODE.EVSYNC_SCHEDULE_PICKS_MISSING
      : CODE.EVSYNC_SCHEDULE_PICKS_LEFT_OUT,
    warning: left,
  };
}

/**
 * The message of a schedule not sent because the list it would go with now is the list the
 * platform has (its synced hash), short of events that are lost (`warning`, from
 * {@link withoutMissingPicks}): the plan's `lostPicks` and the run's gate say it alike.
 */
export function lostPicksMessage(warning: string): string {
  return (
    `not sent again: the platform has it as last sent, ${warning}. ` +
    'Add those events (or fix their rows), or take the picks out of the source'
  );
}
