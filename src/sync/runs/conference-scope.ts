import { conferenceUrl } from '../../config/conference.js';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import type { Ledger } from '../../ledger/ledger.js';
import { conferenceHost } from '../../model/conference.js';
import type { RunRecord } from '../../model/run-record.js';
import type { Logger } from '../../log/logger.js';
import { sameConferenceAs, type ProbeClient } from './conference-probe.js';

/**
 * The ledger seen from the conference a client writes to (docs/ledger.md, "Conferences"):
 * its sync state and job locks are that conference's, and its runs name it. A platform
 * without a base URL (a test's fake) gets the ledger as a whole.
 */
export async function ledgerForPlatform(
  ledger: Ledger,
  platform: { baseUrl?: string; keyId?: number },
  options: ConferenceOptions = {},
): Promise<Ledger> {
  if (platform.baseUrl === undefined) return ledger;
  const url = conferenceUrl(platform.baseUrl);
  // A URL the ledger does not know may be a known conference by another name: ask first
  // (issue #41: 127.0.0.1 then localhost posted every check-in twice).
  if (options.probe !== undefined && (await ledger.findConference(url)) === undefined) {
    const same = await sameConferenceAs(ledger, options.probe, url);
    if (same !== undefined) {
      const known = conferenceHost(same.conference.baseUrl);
      const shown = same.evidence.map((e) => `${e.kind} ${e.id} "${e.clientId}"`).join(', ');
      // A resume or a retry of a run recorded under that very conference goes on as it.
      const ofTheRun = options.conferenceOfRun === same.conference.id;
      if (!options.sameConference && !ofTheRun)
        throw new ConfigError(
          `${conferenceHost(url)} is new to this ledger, but it answers as ${known}, a conference the ledger ` +
            `knows (the same ${shown}): nothing was sent. ` +
            // A resume or a retry finishes its run where it was sent; only `run` takes the flag.
            (options.conferenceOfRun === undefined
              ? `Point EVSYNC_BASE_URL (or the job's platform variable) at ${same.conference.baseUrl}, or run with --same-conference to sync it as ${known}.`
              : `The run was sent to another conference: point EVSYNC_BASE_URL (or the job's platform variable) at the conference \`evsync runs\` shows for it.`),
          { code: CODE.EVSYNC_CONFERENCE_ALIAS },
        );
      options.logger?.warn(
        { conference: known, url: conferenceHost(url) },
        `${ofTheRun ? 'the run names it' : '--same-conference'}: ${conferenceHost(url)} is synced as ${known} (the same ${shown})`,
      );
      return ledger.forConference(same.conference);
    }
  }
  const conference = await ledger.conferenceFor(url, platform.keyId ?? null);
  return ledger.forConference(conference);
}

/** How `ledgerForPlatform` treats a base URL the ledger does not know. */
export interface ConferenceOptions {
  /** Ask the platform whether the URL is a known conference by another name (`sameConferenceAs`). */
  probe?: ProbeClient;
  /**
   * Where it is, sync it as that conference (`--same-conference`) instead of refusing.
   * @defaultValue `false`
   */
  sameConference?: boolean;
  /**
   * The conference of the run a resume or a retry finishes: a URL that answers as it is synced
   * as it, as the run was (`--same-conference`), and any other known one is refused.
   */
  conferenceOfRun?: number;
  logger?: Logger;
}

/**
 * Takes for the ledger's conference the job's state recorded before runs named their
 * conference, and says so once (the job's runs name it afterwards, so there is nothing
 * to take a second time).
 */
export async function adoptUnscopedState(
  ledger: Pick<Ledger, 'conference' | 'adoptUnscopedState'>,
  jobName: string,
  logger: Logger | undefined,
): Promise<void> {
  if (ledger.conference === undefined) return;
  const adopted = await ledger.adoptUnscopedState(jobName);
  if (adopted.runs === 0) return;
  const host = conferenceHost(ledger.conference.baseUrl);
  logger?.warn(
    {
      conference: host,
      adopted: { runs: adopted.runs, hashes: adopted.hashes, ids: adopted.ids },
      left: adopted.left,
    },
    `job "${jobName}": its ${adopted.runs} earlier run(s) were recorded before runs named their conference; ` +
      `they, ${adopted.hashes} synced key(s) and ${adopted.ids} platform id(s) are now taken as ${host}'s ` +
      '(docs/ledger.md, "Conferences"). If those runs went to another conference, its next run there sends ' +
      'everything again, and finds what exists instead of creating it twice.',
  );
}

/**
 * The engine's deps seen from its client's conference when their ledger is the ledger as a
 * whole (the demo, a script, a test): a run, resume or retry always works on the state and
 * the job lock of the conference it sends to, and `requireRunConference` then compares that
 * with a stored run's. A ledger already seen from a conference (`openEngine`) is kept.
 */
export async function depsForPlatform<
  D extends { ledger: Ledger; platform: { baseUrl?: string; keyId?: number } },
>(deps: D): Promise<D> {
  if (deps.ledger.conference !== undefined) return deps;
  return { ...deps, ledger: await ledgerForPlatform(deps.ledger, deps.platform) };
}

/**
 * A resume or a retry sends a run to the conference it wrote to, never another: a run
 * recorded without one is taken by the ledger's conference (see `adoptUnscopedState`).
 */
export function requireRunConference(ledger: Pick<Ledger, 'conference'>, run: RunRecord): void {
  const here = ledger.conference;
  if (here === undefined || run.conference === null || run.conference.id === here.id) return;
  const theirs = conferenceHost(run.conference.baseUrl);
  throw new ConfigError(
    `Run ${run.id} wrote to ${theirs}, but this evsync points at ${conferenceHost(here.baseUrl)}: ` +
      `nothing was sent. Point the job's platform variables (or EVSYNC_BASE_URL) at ${theirs} to finish it there, ` +
      'or run the job to sync the other conference.',
    { code: CODE.EVSYNC_CONFERENCE_MISMATCH },
  );
}
