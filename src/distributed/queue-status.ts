import type { Redis } from 'ioredis';
import type { Ledger } from '../ledger/ledger.js';
import { conferenceHost } from '../model/conference.js';
import type { RunRecord } from '../model/run-record.js';
import type { DistributedConfig } from './distributed-config.js';
import type { RunPhaseNote } from './distributed-executor.js';
import { waitsForWorker } from './handed-to-workers.js';
import { workerConferences } from './conference-platforms.js';
import type { IntentQueue } from './intent-queue.js';
import { platformBucket } from './open-distributed.js';
import { declarations, type RateDeclaration } from './declared-rates.js';
import { RedisRateLimiter, type SharedRate } from './redis-rate-limiter.js';
import type { ScheduleInfo, Schedules } from './schedules.js';

/** What `evsync status` shows of an installation in distributed mode. */
export interface QueueStatus {
  redis: string;
  prefix: string;
  jobs: { waiting: number; active: number; delayed: number; failed: number; completed: number };
  /** Each worker alive (`host:pid`), with the conferences it served and those it refused, and why. */
  workers: Array<{ name: string; serves: string[]; refuses: Record<string, string> }>;
  /** Intents in flight at once across all workers (the last run's `rate.concurrency`). */
  globalConcurrency: number | null;
  /** The rate in force per conference key (host, key id), as its last run set it. */
  rates: Array<{ conference: string; keyId: number | null; rate: SharedRate; declared: RateDeclaration[] }>;
  /** Runs the ledger has as running, with their current phase when distributed. */
  runs: Array<{
    run: RunRecord;
    done: number;
    planned: number | undefined;
    phase: RunPhaseNote | undefined;
    /** Its process ended before it did: only `evsync resume` finishes it (`Ledger.processGone`). */
    processGone: boolean;
    /** Handed over by `run --detach`, not taken by a worker yet (`waitsForWorker`). */
    waitingForWorker: boolean;
  }>;
  schedules: ScheduleInfo[];
}

export async function queueStatus(input: {
  config: DistributedConfig;
  redis: Redis;
  queue: IntentQueue;
  schedules: Schedules;
  ledger: Ledger;
}): Promise<QueueStatus> {
  const { queue, ledger } = input;
  const counts = await queue.queue.getJobCounts(
    'waiting',
    'prioritized',
    'active',
    'delayed',
    'failed',
    'completed',
  );
  // BullMQ names a worker's connection `<prefix>:<queue>:w:<worker name>`: ours is host:pid.
  const noted = await workerConferences(input.redis, input.config.prefix);
  const workers = (await queue.queue.getWorkers()).map((worker) => {
    const name = /:w:(.+)$/.exec(worker.rawname ?? '')?.[1] ?? worker.addr ?? '?';
    const note = noted.get(name);
    return { name, serves: note?.serves ?? [], refuses: note?.refuses ?? {} };
  });
  const rates: QueueStatus['rates'] = [];
  for (const conference of await ledger.listConferences()) {
    if (conference.keyId === null) continue;
    const bucket = platformBucket(input.config.prefix, {
      baseUrl: conference.baseUrl,
      keyId: conference.keyId,
    });
    const rate = await RedisRateLimiter.rateInForce(input.redis, bucket);
    if (rate)
      rates.push({
        conference: conferenceHost(conference.baseUrl),
        keyId: conference.keyId,
        rate,
        declared: await declarations(input.redis, bucket),
      });
  }
  const notes = await queue.phaseNotes();
  const running = (await ledger.listRuns(50)).filter(
    (run) => run.status === 'running' || waitsForWorker(run),
  );
  const runs = await Promise.all(
    running.map(async (run) => {
      const byKind = await ledger.resultCounts(run.id);
      let done = 0;
      for (const actions of Object.values(byKind))
        for (const count of Object.values(actions ?? {})) done += count ?? 0;
      const planned = typeof run.options.planned === 'number' ? run.options.planned : undefined;
      return {
        run,
        done,
        planned,
        phase: notes.get(run.id),
        processGone: await ledger.processGone(run),
        waitingForWorker: waitsForWorker(run),
      };
    }),
  );
  return {
    redis: input.config.description,
    prefix: input.config.prefix,
    jobs: {
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
      completed: counts.completed ?? 0,
    },
    workers,
    globalConcurrency: await queue.queue.getGlobalConcurrency(),
    rates,
    runs,
    schedules: await input.schedules.list(),
  };
}
