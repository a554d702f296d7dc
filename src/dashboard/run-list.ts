import { z } from 'zod';
import { ConfigError } from '../errors/evsync-error.js';
import type { Ledger } from '../ledger/ledger.js';
import { conferenceHost } from '../model/conference.js';
import { jobOverviews, type JobOverview, type OverviewSchedule } from '../sync/notify/job-overview.js';
import { heldKeys, type HeldKey } from '../sync/phases/held-keys.js';
import { loadRuns, type RunSummaryData } from './dashboard-data.js';

/**
 * The runs list (`/runs`): the newest runs, of every conference or of one, and the
 * conferences it can be filtered by. Its query is checked here, at the edge: a value that
 * is not a limit or a known conference is a usage error (400), never a failed query (500).
 */

/** A conference as the dashboard offers it: its ledger id and its host, never a key (nor the key's id). */
export interface ConferenceOption {
  id: number;
  host: string;
}

export interface RunListQuery {
  /** How many runs, 1 to 500. @defaultValue 50 */
  limit: number;
  /** Only this conference's runs. */
  conferenceId?: number | undefined;
}

export interface RunListData {
  runs: RunSummaryData[];
  /** Every conference the ledger knows, most recently used first. */
  conferences: ConferenceOption[];
  /**
   * Each job that has run or is scheduled, as `evsync status` shows it (`jobOverviews`): how
   * its last run ended, its last success, its next fire time, overdue, undelivered notices.
   * Of the conference's jobs only, when the list is of one conference.
   */
  jobs: JobOverview[];
  /**
   * The keys held as now another person, as `evsync status` lists them (`heldKeys`): no job
   * sends their dependents until their user syncs. Of the conference only, when filtered.
   */
  heldKeys: HeldKey[];
}

export const RUN_LIST_LIMIT = 50;
const MAX_RUN_LIST_LIMIT = 500;

const runListQuerySchema = z.object({
  // As before conferences: anything that is not a number shows the default, a number is clamped.
  limit: z
    .string()
    .optional()
    .transform((value) =>
      Math.min(Math.max(Number(value ?? RUN_LIST_LIMIT) || RUN_LIST_LIMIT, 1), MAX_RUN_LIST_LIMIT),
    ),
  // Empty: the select's "any conference".
  conference: z
    .string()
    .trim()
    .regex(/^([1-9]\d{0,8})?$/, 'give the id of a conference the runs page lists')
    .optional()
    .transform((value) => (value ? Number(value) : undefined)),
});

export function parseRunListQuery(query: Record<string, string | undefined>): RunListQuery {
  const parsed = runListQuerySchema.safeParse({ limit: query.limit, conference: query.conference });
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const name = String(issue?.path[0] ?? 'query');
    throw new ConfigError(`${name}=${query[name] ?? ''}: ${issue?.message ?? 'not a value this page takes'}`);
  }
  return { limit: parsed.data.limit, conferenceId: parsed.data.conference };
}

/**
 * The runs, the conferences and the jobs' summary; a conference the ledger does not know is a
 * usage error. `schedules`: distributed mode's registered schedules, none in inline mode.
 */
export async function loadRunList(
  ledger: Ledger,
  query: RunListQuery,
  schedules: readonly OverviewSchedule[] = [],
): Promise<RunListData> {
  const conferences = (await ledger.listConferences()).map((conference): ConferenceOption => ({
    id: conference.id,
    host: conferenceHost(conference.baseUrl),
  }));
  const { conferenceId } = query;
  if (conferenceId !== undefined && !conferences.some((conference) => conference.id === conferenceId)) {
    const known = conferences.map((conference) => `${conference.id} (${conference.host})`).join(', ');
    throw new ConfigError(
      `conference=${conferenceId}: this ledger has no such conference; ${known ? `it knows ${known}` : 'it knows none yet'}`,
    );
  }
  const host = conferences.find((conference) => conference.id === conferenceId)?.host;
  const [runs, jobs, held] = await Promise.all([
    loadRuns(ledger, query.limit, conferenceId),
    jobOverviews(ledger, schedules),
    heldKeys(ledger),
  ]);
  return {
    runs,
    conferences,
    jobs: host === undefined ? jobs : jobs.filter((job) => job.conference === host),
    heldKeys: host === undefined ? held : held.filter((hold) => hold.conference === host),
  };
}
