import type { Ledger } from '../../ledger/ledger.js';
import type { ResultWriterOptions } from '../../ledger/result-writer.js';
import type { Logger } from '../../log/logger.js';
import type { ProgressSink } from '../progress/progress-sink.js';
import type { SyncPlatform } from '../processors/sync-platform.js';
import type { PlanExecutor, QueueFactory } from './execute-plan.js';

/** What every run, resume and retry needs around the plan. */
export interface EngineDeps {
  ledger: Ledger;
  platform: SyncPlatform;
  /** Intents in flight at once: the job's `rate.concurrency`. */
  concurrency: number;
  /** Aborting it (SIGINT/SIGTERM) stops taking new work; the run ends `interrupted`. */
  signal?: AbortSignal;
  /** @defaultValue silent */
  progress?: ProgressSink;
  logger?: Logger;
  /** @defaultValue the inline queue */
  queueFactory?: QueueFactory;
  /**
   * What sends the planned work. @defaultValue `executePlan`, in this process; distributed
   * mode hands it to workers (docs/distributed.md).
   */
  executor?: PlanExecutor;
  /** @defaultValue batches of 1,000 results, flushed at least every second */
  resultWriter?: ResultWriterOptions;
  /**
   * When another process runs the job (its lock is held), wait for it, calling this once
   * with who holds it; without it, the run fails with `EVSYNC_JOB_BUSY`.
   */
  waitForJob?: (holder: string) => void;
  /** See `ExecuteOptions.platformDownLimit`. */
  platformDownLimit?: number;
  /**
   * Several runs share this process (the dashboard's actions): each call is tagged with its
   * run (`runCalls`), so that each run's tally counts its own. A process of one run leaves it
   * off: on Node 20 an AsyncLocalStorage in use turns on promise hooks for every promise, a
   * tenth of the engine's CPU per intent. @defaultValue `false`
   */
  severalRuns?: boolean;
}
