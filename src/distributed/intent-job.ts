import { hostname } from 'node:os';
import { z } from 'zod';
import { INTENT_KINDS } from '../model/intent.js';
import { PHASES } from '../sync/phases/sync-phases.js';

/**
 * What a queue job carries: which intent of which run, nothing more. The worker reads the
 * intent from the ledger (docs/distributed.md, "A job"), so Redis never holds params, and
 * a job enqueued twice finds its result already recorded.
 */
export const intentJobSchema = z.object({
  runId: z.string().min(1),
  /** One coordinator's pass over the run (a run, then each resume, has its own). */
  epoch: z.string().min(1),
  phase: z.enum(PHASES),
  kind: z.enum(INTENT_KINDS),
  key: z.string(),
  /**
   * The ledger the run is in (`Ledger.ledgerId`): a worker of another ledger refuses the job.
   * Absent in jobs enqueued before jobs named their ledger.
   */
  ledger: z.string().optional(),
});

export type IntentJob = z.infer<typeof intentJobSchema>;

/**
 * The platform kept answering 429 through the client's own waits: the job goes back to
 * the queue, which pauses for `waitMs`, and the try does not count as a failed attempt.
 */
export class IntentRateLimited extends Error {
  override readonly name = 'IntentRateLimited';
  constructor(readonly waitMs: number) {
    super(`the platform is rate limiting: the queue pauses for ${waitMs} ms`);
  }
}

/**
 * This worker cannot do the job: it cannot sign for the run's conference
 * (`ConferencePlatforms`), or it serves another ledger than the job's. The job goes back to
 * the queue for a worker that can, and the try does not count as a failed attempt
 * (docs/distributed.md, "Several conferences").
 */
export class JobRefused extends Error {
  override readonly name = 'JobRefused';
  constructor(
    /** What this worker cannot serve: a conference's host, or another ledger. */
    readonly host: string,
    readonly reason: string,
  ) {
    super(`this worker cannot send to ${host}: ${reason}`);
  }
}

/** `host:pid` of this process, recorded with each result it writes (docs/distributed.md). */
export const WORKER_NAME = `${hostname()}:${process.pid}`;

/** What the worker answers for a job: the action it recorded, or that another delivery had. */
export interface IntentJobResult {
  action: string;
  worker: string;
}
