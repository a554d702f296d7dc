import { platformConfigFor, platformRefOfRun } from '../config/conference.js';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import { distributedConfigFromEnv } from '../distributed/distributed-config.js';
import type { ErasedJobs } from '../distributed/erase-intent-jobs.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Logger } from '../log/logger.js';
import { conferenceHost } from '../model/conference.js';
import { erasureHash, erasureMarker, isErasureMarker } from '../model/erasure.js';
import { isLookupKey } from '../model/row-origin.js';
import type { IntentResultRecord } from '../model/result-records.js';
import type { RunRecord } from '../model/run-record.js';
import { PlatformClient } from '../platform/platform-client.js';
import { emailParam } from '../platform/vendor.js';
import { erasedBy, forgetPerson, type ForgetOutcome } from '../sync/erasure/forget-person.js';
import { ledgerForPlatform, requireRunConference } from '../sync/runs/conference-scope.js';
import { requireRun } from './dashboard-data.js';

export interface PersonForgetOptions {
  ledger: Ledger;
  logger: Logger;
  /** A client instead of one from the run's platform variables (tests against a sandbox). */
  client?: PlatformClient;
}

/** What a forget from the dashboard did (or, previewed, would do): counts and ids, never the person. */
export interface DashboardForget {
  run: RunRecord;
  /** The host of the conference the person is forgotten in. */
  conference: string;
  outcome: Omit<ForgetOutcome, 'namesKey'>;
  /** The row's marker once forgotten: where its page now is. */
  marker: string | undefined;
  /** Distributed mode: the intents queue's jobs naming the person removed, or Redis did not answer. */
  redisJobs: ErasedJobs | 'unreachable' | undefined;
}

/** As `evsync forget` takes its turn: a handful of calls. */
const RATE = { requestsPerSecond: 5, concurrency: 1 };

/**
 * "Forget this person" on a user row's page (docs/privacy.md, "From the dashboard"): the
 * core of `evsync forget` (`forgetPerson`, its dry run for the confirmation page), aimed at
 * exactly the row's person: the row's client_id, in the conference its run wrote to.
 */
export class PersonForget {
  constructor(private readonly options: PersonForgetOptions) {}

  /** The dry run: what would be removed and replaced, nothing removed. */
  preview(runId: string, clientId: string): Promise<DashboardForget> {
    return this.inConference(runId, clientId, { dryRun: true, reason: undefined });
  }

  forget(runId: string, clientId: string, reason: string | undefined): Promise<DashboardForget> {
    return this.inConference(runId, clientId, { dryRun: false, reason });
  }

  private async inConference(
    runId: string,
    clientId: string,
    how: { dryRun: boolean; reason: string | undefined },
  ): Promise<DashboardForget> {
    const { ledger, logger } = this.options;
    const run = await requireRun(ledger, runId);
    const row = await requireUserRow(ledger, run, clientId);
    const client =
      this.options.client ??
      PlatformClient.fromConfig(platformConfigFor(platformRefOfRun(run)), { rateLimit: RATE, logger });
    try {
      // Read before anything is removed: a setting that does not hold stops the forget whole.
      const erasing = how.dryRun || this.options.client ? undefined : distributedConfigFromEnv();
      // The conference the run wrote to, and only it: the client's, checked against the run's.
      const scoped = await ledgerForPlatform(ledger, client);
      requireRunConference(scoped, run);
      const { namesKey, ...outcome } = await forgetPerson(
        { ledger: scoped, platform: client },
        {
          // The row's e-mail with its key: the key may have named another person in other rows
          // (a ticket handed on), and this row's person is the one to forget.
          emails: rowEmail(row, client.vendor),
          clientIds: [clientId],
          reason: how.reason,
          by: dashboardUser(),
          dryRun: how.dryRun,
        },
      );
      let redisJobs: ErasedJobs | 'unreachable' | undefined;
      if (erasing !== undefined) {
        // The person is forgotten by now: a queue that does not answer is told, not thrown.
        const { eraseIntentJobs } = await import('../distributed/erase-intent-jobs.js');
        redisJobs = await eraseIntentJobs(erasing, namesKey).catch((error: unknown) => {
          logger.warn(
            { err: error },
            'forget: the queue did not answer; its jobs naming the person were left',
          );
          return 'unreachable' as const;
        });
      }
      const marker = how.dryRun ? undefined : erasureMarker(await scoped.erasure().key(), 'user', clientId);
      logger.info(
        { runId, dryRun: how.dryRun, tombstone: outcome.tombstone?.id, redisJobs },
        how.dryRun ? 'forget previewed' : 'person forgotten from the dashboard',
      );
      const conference = scoped.conference ? conferenceHost(scoped.conference.baseUrl) : 'the ledger';
      return { run, conference, outcome, marker, redisJobs };
    } finally {
      if (!this.options.client) await client.close();
    }
  }
}

/**
 * The action targets one row's person: a user row of this run, keyed by a client_id (not a
 * row's place, not a marker already). Anything else is refused before the platform is asked.
 */
async function requireUserRow(ledger: Ledger, run: RunRecord, clientId: string): Promise<IntentResultRecord> {
  if (isErasureMarker(clientId)) throw usage('This row is an erased person’s already: nothing to forget.');
  if (!isLookupKey(clientId))
    throw usage(
      'This row has no client_id of its own, so the dashboard cannot name its person: use `evsync forget --email …`.',
    );
  const [row] = await ledger.results(run.id, { kinds: ['user'], keys: [clientId], limit: 1 });
  if (row === undefined) throw usage(`Run ${run.id} has no user row with that client_id.`);
  return row;
}

/** The e-mail a user row gave, if it kept one. */
function rowEmail(row: IntentResultRecord, vendor: string): string[] {
  const email = row.params[emailParam(vendor)]?.trim();
  return email ? [email] : [];
}

/**
 * Whether a user row's client_id is held by a tombstone of its run's conference: the row was
 * forgotten, and its page says so instead of "no result" (without quoting the key back).
 */
export async function isForgotten(
  ledger: Ledger,
  run: RunRecord,
  kind: string,
  clientId: string,
): Promise<boolean> {
  if (kind !== 'user') return false;
  const erasure = ledger.erasure();
  const hash = erasureHash(await erasure.key(), { kind: 'client_id', value: clientId });
  return hash !== undefined && (await erasure.activeHashes(run.conference?.id ?? 0)).has(hash);
}

function usage(message: string): ConfigError {
  return new ConfigError(message, { code: CODE.EVSYNC_USAGE });
}

/**
 * Who ran it, kept with the tombstone. The dashboard has one shared token and no accounts,
 * so the account that serves it stands for the signed-in operator, marked as the dashboard's.
 */
function dashboardUser(): string {
  return `${erasedBy()} (dashboard)`;
}
