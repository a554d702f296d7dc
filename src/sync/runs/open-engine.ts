import { platformConfigFor, type PlatformRef } from '../../config/conference.js';
import { openLedger } from '../../ledger/open-ledger.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { Logger } from '../../log/logger.js';
import { PlatformClient } from '../../platform/platform-client.js';
import type { JobFile } from '../job-file.js';
import type { ProgressSink } from '../progress/progress-sink.js';
import { LogProgress } from '../progress/log-progress.js';
import { TtyProgress } from '../progress/tty-progress.js';
import type { EngineDeps } from '../execute/engine-deps.js';
import { ledgerForPlatform } from './conference-scope.js';
import { deliveriesSettled } from '../notify/background-deliveries.js';

export interface OpenEngineOptions {
  rate: JobFile['rate'];
  logger: Logger;
  signal?: AbortSignal;
  /** A client to use instead of one built from `EVSYNC_*` (the demo's sandbox). */
  client?: PlatformClient;
  /** The job's conference (`platform:`): variables to read instead of `EVSYNC_*`. */
  platform?: PlatformRef;
  /** A ledger to use instead of the one the environment names. */
  ledger?: Ledger;
  progress?: ProgressSink;
  /**
   * Wait for a job another process runs instead of failing (`--wait`): called once with
   * who holds it. See `EngineDeps.waitForJob`.
   */
  wait?: (holder: string) => void;
  /**
   * A base URL new to the ledger that answers as a conference it knows is synced as that
   * one (`--same-conference`), instead of refused (`ledgerForPlatform`). @defaultValue `false`
   */
  sameConference?: boolean;
  /** See `ConferenceOptions.conferenceOfRun`: a resume's or a retry's run's conference. */
  conferenceOfRun?: number;
  /** See `EngineDeps.severalRuns`. */
  severalRuns?: boolean;
}

export interface OpenEngine {
  deps: EngineDeps;
  close(): Promise<void>;
}

/**
 * The ledger the environment names (`DATABASE_URL`, else the embedded one) seen from the
 * job's conference, a client for that conference with the job's rate (`rate.per_second`,
 * `rate.concurrency`), and the progress display that fits stderr: a bar on a TTY, JSON
 * logs otherwise.
 */
export async function openEngine(options: OpenEngineOptions): Promise<OpenEngine> {
  const client =
    options.client ??
    PlatformClient.fromConfig(platformConfigFor(options.platform), {
      rateLimit: { requestsPerSecond: options.rate.per_second, concurrency: options.rate.concurrency },
      logger: options.logger,
    });
  let opened: Ledger | undefined;
  let ledger: Ledger;
  try {
    opened = options.ledger ?? (await openLedger());
    ledger = await ledgerForPlatform(opened, client, {
      probe: client,
      logger: options.logger,
      ...(options.sameConference ? { sameConference: true } : {}),
      ...(options.conferenceOfRun === undefined ? {} : { conferenceOfRun: options.conferenceOfRun }),
    });
  } catch (error) {
    if (!options.client) await client.close();
    if (!options.ledger) await opened?.close();
    throw error;
  }
  return {
    deps: {
      ledger,
      platform: client,
      concurrency: options.rate.concurrency,
      logger: options.logger,
      progress: options.progress ?? defaultProgress(options.logger),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.wait ? { waitForJob: options.wait } : {}),
      ...(options.severalRuns ? { severalRuns: true } : {}),
    },
    close: async () => {
      // A run's notice is still being delivered, and its delivery is recorded in the ledger.
      await deliveriesSettled();
      if (!options.client) await client.close();
      if (!options.ledger) await ledger.close();
    },
  };
}

export function defaultProgress(logger: Logger): ProgressSink {
  return process.stderr.isTTY ? new TtyProgress(process.stderr) : new LogProgress(logger);
}
