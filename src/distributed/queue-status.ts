import type { Redis } from 'ioredis';
import type { Ledger } from '../ledger/ledger.js';
import type { RunRecord } from '../model/run-record.js';
import type { DistributedConfig } from './distributed-config.js';
import type { RunPhaseNote } from './distributed-executor.js';
import { waitsForWorker } from '../model/run-record.js';
import { workerConferences } from './worker-notes.js';
import type { IntentQueue } from './intent-queue.js';
import { laneHost, readLanes } from './lanes.js';
import { platformBucket } from './open-distributed.js';
import { declarations, type RateDeclaration } from './declared-rates.js';
import { RedisRateLimiter, type RateNow } from './redis-rate-limiter.js';
import type { ScheduleInfo, Schedules } from './schedules.js';

/** Jobs of a queue by state. */
export interface JobCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

/** One conference key's lane (docs/distributed.md, "Several conferences"), as `evsync status` shows it. */
export interface LaneStatus {
  /** The hash of base URL and key id that names the lane's queue and bucket. */
  id: string;
  conference: string;
  keyId: number;
  /** The key's request rate in force (and what 429s left of it now), and the jobs that declared one while running. */
  rate: RateNow | undefined;
  declared: RateDeclaration[];
  /** The lane's global limits: intents in flight on all workers, jobs started per second. */
  concurrency: number | null;
  jobsPerSecond: number | null;
  jobs: JobCounts;
  /** The workers taking the lane's jobs (`host:pid`): none means nothing is sent to it. */
  workers: string[];
}

/** What `evsync status` shows of an installation in distributed mode. */
export interface QueueStatus {
  redis: string;
  prefix: string;
  /** Every lane's jobs and the shared queue's, added up. */
  jobs: JobCounts;
  /** Each worker alive (`host:pid`), with the conferences it served and those it refused, and why. */
  workers: Array<{
    name: string;
    serves: string[];
    left?: string[];
    refuses: Record<string, string>;
    rejected?: Record<string, string>;
  }>;
  lanes: LaneStatus[];
  /** The queue of releases before lanes, which workers still drain. */
  sharedQueue: JobCounts;
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
  /** A lane's queue, opened once by the reader (`openQueueStatusReader`). */
  laneQueue: (id: string) => IntentQueue;
  schedules: Schedules;
  ledger: Ledger;
}): Promise<QueueStatus> {
  const { queue, ledger } = input;
  const sharedQueue = await countsOf(queue);
  // BullMQ names a worker's connection `<prefix>:<queue>:w:<worker name>`: ours is host:pid.
  const noted = await workerConferences(input.redis, input.config.prefix);
  const workers = (await queue.queue.getWorkers()).map((worker) => {
    const name = workerName(worker);
    const note = noted.get(name);
    return {
      name,
      serves: note?.serves ?? [],
      left: note?.left ?? [],
      refuses: note?.refuses ?? {},
      rejected: note?.rejected ?? {},
    };
  });
  const lanes: LaneStatus[] = [];
  for (const lane of (await readLanes(input.redis, input.config.prefix)).values()) {
    const laneQueue = input.laneQueue(lane.id);
    const bucket = platformBucket(input.config.prefix, lane);
    const limit = await laneQueue.queue.getGlobalRateLimit();
    lanes.push({
      id: lane.id,
      conference: laneHost(lane),
      keyId: lane.keyId,
      rate: await RedisRateLimiter.rateNow(input.redis, bucket),
      declared: await declarations(input.redis, bucket),
      concurrency: await laneQueue.queue.getGlobalConcurrency(),
      jobsPerSecond: limit === null ? null : (limit.max * 1000) / limit.duration,
      jobs: await countsOf(laneQueue),
      workers: (await laneQueue.queue.getWorkers()).map(workerName),
    });
  }
  lanes.sort((a, b) => a.conference.localeCompare(b.conference) || a.keyId - b.keyId);
  const notes = await queue.phaseNotes();
  const running = (await ledger.listRuns(50)).filter(
    (run) => run.status === 'running' || waitsForWorker(run),
  );
  const runs = await Promise.all(
    running.map(async (run) => {
      return {
        run,
        ...(await intentsDone(ledger, run)),
        phase: notes.get(run.id),
        processGone: await ledger.processGone(run),
        waitingForWorker: waitsForWorker(run),
      };
    }),
  );
  return {
    redis: input.config.description,
    prefix: input.config.prefix,
    jobs: [sharedQueue, ...lanes.map((lane) => lane.jobs)].reduce(addCounts),
    workers,
    lanes,
    sharedQueue,
    runs,
    schedules: await input.schedules.list(),
  };
}

async function countsOf(queue: IntentQueue): Promise<JobCounts> {
  const counts = await queue.queue.getJobCounts(
    'waiting',
    'prioritized',
    'active',
    'delayed',
    'failed',
    'completed',
  );
  return {
    waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
    active: counts.active ?? 0,
    delayed: counts.delayed ?? 0,
    failed: counts.failed ?? 0,
    completed: counts.completed ?? 0,
  };
}

function addCounts(a: JobCounts, b: JobCounts): JobCounts {
  return {
    waiting: a.waiting + b.waiting,
    active: a.active + b.active,
    delayed: a.delayed + b.delayed,
    failed: a.failed + b.failed,
    completed: a.completed + b.completed,
  };
}

/** `host:pid` of a worker's connection, named `<prefix>:<queue>:w:<worker name>` by BullMQ. */
function workerName(worker: { rawname?: string; addr?: string }): string {
  return /:w:(.+)$/.exec(worker.rawname ?? '')?.[1] ?? worker.addr ?? '?';
}

/**
 * A run in progress as `status` and the queue page count it: of its planned intents, those
 * with a result. Unchanged rows and rows that failed the mapping have results but no planned
 * intent, and counted, a run read "690 of 300 intents done". While the plan is not whole
 * (`planned` unknown), the results sent so far.
 */
export async function intentsDone(
  ledger: Pick<Ledger, 'countPending' | 'resultCounts'>,
  run: Pick<RunRecord, 'id' | 'options'>,
): Promise<{ done: number; planned: number | undefined }> {
  const planned = typeof run.options.planned === 'number' ? run.options.planned : undefined;
  if (planned !== undefined) {
    const pending = await ledger.countPending(run.id);
    return { done: Math.max(0, planned - pending.reduce((sum, group) => sum + group.count, 0)), planned };
  }
  let done = 0;
  for (const actions of Object.values(await ledger.resultCounts(run.id)))
    for (const [action, count] of Object.entries(actions ?? {}))
      if (action !== 'unchanged') done += count ?? 0;
  return { done, planned };
}
