import type { Ledger } from '../../ledger/ledger.js';
import type { KeyHold } from '../../ledger/ledger-holds.js';
import { conferenceHost } from '../../model/conference.js';
import { everyHold } from './key-holds.js';

/** A key held from every job's dependents (docs/sync-engine.md, "Who is who"), with its conference's host. */
export type HeldKey = Omit<KeyHold, 'heldAt'> & { conference: string; heldAt: string };

/** Every conference's key holds, named by the conference's host: what `evsync status` and the dashboard list. */
export async function heldKeys(
  ledger: Pick<Ledger, 'listConferences' | 'forConference'>,
): Promise<HeldKey[]> {
  return (await everyHold(ledger)).map(({ conference, hold }) => ({
    ...hold,
    conference: conferenceHost(conference.baseUrl),
    heldAt: hold.heldAt.toISOString(),
  }));
}

/** The heading over the held keys, wherever they are listed. */
export const HELD_KEYS_HEADING =
  'Held keys (a run refused their user as now another person: no job sends their links, schedules or check-ins until it syncs)';

/**
 * One held key in words, in parts so that a page can link the run and show the time its way:
 * `user "QWE-1" on HOST`, `refused by run R of job "J"`, the refusal's code, and the search
 * that finds the refused row (`evsync report R --status failed --search KEY`).
 */
export function heldKeyWords(hold: HeldKey): {
  key: string;
  refusedBy: string;
  code: string;
  search: string;
} {
  return {
    key: `${hold.kind} "${hold.clientId}" on ${hold.conference}`,
    refusedBy: `refused by run ${hold.runId} of job "${hold.jobName}"`,
    code: hold.errorCode,
    search: hold.clientId,
  };
}
