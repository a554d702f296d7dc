import type { RateDeclaration } from './declared-rates.js';
import type { QueueStatus } from './queue-status.js';

// Apart from queue-status.ts, which opens the queue: `evsync status` in inline mode, and the
// dashboard's page, word a status without loading bullmq and ioredis.

/** A worker in words: `host:pid (serves a.example; refuses b.example: why)`. */
export function describeWorker(worker: QueueStatus['workers'][number]): string {
  const left = worker.left ?? [];
  const parts = [
    ...(worker.serves.length > 0 ? [`serves ${worker.serves.join(', ')}`] : []),
    ...(left.length > 0
      ? [`left ${left.join(', ')}: the key is no longer in its environment, so it takes none of their jobs`]
      : []),
    ...Object.entries(worker.refuses).map(([host, why]) => `refuses ${host}: ${why}`),
    ...Object.entries(worker.rejected ?? {}).map(([host, why]) => `signature refused by ${host}: ${why}`),
  ];
  return parts.length === 0 ? `${worker.name} (no run taken yet)` : `${worker.name} (${parts.join('; ')})`;
}

/**
 * Each conference key's lane in words (docs/distributed.md, "Several conferences"): its host and
 * key, its rate and where it comes from, its limits, its jobs and the workers taking them; then
 * the shared queue of releases before lanes while it holds jobs.
 */
export function describeLanes(status: Pick<QueueStatus, 'lanes' | 'sharedQueue'>): string[] {
  const lines = status.lanes.map((lane) => {
    const rate =
      lane.rate === undefined
        ? 'no rate set'
        : `${lane.rate.requestsPerSecond} requests/s (burst ${lane.rate.burst}), ${rateSource(lane.declared)}${rateNow(lane.rate)}`;
    const limits = `${lane.concurrency ?? 'no limit of'} intents at a time, ${lane.jobsPerSecond ?? 'no limit of'} jobs/s`;
    const jobs = `${lane.jobs.waiting} waiting, ${lane.jobs.active} active, ${lane.jobs.delayed} delayed`;
    const workers =
      lane.workers.length === 0
        ? "no worker serves it: nothing is sent until a worker whose environment holds the key's variables starts"
        : `workers ${lane.workers.join(', ')}`;
    return `${lane.conference} (key ${lane.keyId}, lane ${lane.id}): ${rate}; ${limits}; ${jobs}; ${workers}`;
  });
  if (lines.length === 0) lines.push('none yet (a run opens its conference key’s lane)');
  const shared = status.sharedQueue;
  if (shared.waiting + shared.active + shared.delayed > 0)
    lines.push(
      `shared queue of runs started before lanes: ${shared.waiting} waiting, ${shared.active} active, ${shared.delayed} delayed; every worker drains it`,
    );
  return lines;
}

/**
 * What the platform's 429s left of a key's rate, in words: its workers follow this, not the
 * rate set, until it has recovered. Nothing when no 429 weighs on it.
 */
function rateNow(rate: NonNullable<QueueStatus['lanes'][number]['rate']>): string {
  const paused =
    rate.pausedForMs > 0
      ? ` (paused ${Math.ceil(rate.pausedForMs / 1000)} s more by the platform's Retry-After)`
      : '';
  const current = rate.currentRequestsPerSecond;
  if (current >= rate.requestsPerSecond * 0.995) return paused;
  return `; cut to ${current.toFixed(current < 10 ? 1 : 0)} requests/s by the platform's 429, recovering${paused}`;
}

/** Where a key's rate in force comes from, in words. */
function rateSource(declared: readonly RateDeclaration[]): string {
  if (declared.length === 0) return 'as the last run of this key left it (no job sends with it now)';
  const jobs = declared
    .map(
      (d) =>
        `${d.job} ${d.requestsPerSecond}/s${d.concurrency === undefined ? '' : ` (${d.concurrency} at a time)`}`,
    )
    .join(', ');
  return declared.length === 1
    ? `the rate of ${jobs}, running`
    : `the lowest of the jobs running with this key: ${jobs}`;
}
