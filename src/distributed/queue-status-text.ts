import type { RateDeclaration } from './declared-rates.js';
import type { QueueStatus } from './queue-status.js';

// Apart from queue-status.ts, which opens the queue: `evsync status` in inline mode, and the
// dashboard's page, word a status without loading bullmq and ioredis.

/** A worker in words: `host:pid (serves a.example; refuses b.example: why)`. */
export function describeWorker(worker: QueueStatus['workers'][number]): string {
  const parts = [
    ...(worker.serves.length > 0 ? [`serves ${worker.serves.join(', ')}`] : []),
    ...Object.entries(worker.refuses).map(([host, why]) => `refuses ${host}: ${why}`),
  ];
  return parts.length === 0 ? `${worker.name} (no run taken yet)` : `${worker.name} (${parts.join('; ')})`;
}

/** The rate limits in force, one line per conference key. */
export function describeRates(status: Pick<QueueStatus, 'rates' | 'globalConcurrency'>): string[] {
  if (status.rates.length === 0) return ['none yet (set by the first run)'];
  return [
    ...status.rates.map(
      ({ conference, keyId, rate, declared }) =>
        `${conference} (key ${keyId ?? '?'}): ${rate.requestsPerSecond} requests/s (burst ${rate.burst}), ${rateSource(declared)}`,
    ),
    `${status.globalConcurrency ?? 'no limit of'} intents at a time across all workers`,
  ];
}

/** Where a key's rate in force comes from, in words. */
function rateSource(declared: readonly RateDeclaration[]): string {
  if (declared.length === 0) return 'as the last run of this key left it (no job sends with it now)';
  const jobs = declared.map((d) => `${d.job} ${d.requestsPerSecond}/s`).join(', ');
  return declared.length === 1
    ? `the rate of ${jobs}, running`
    : `the lowest of the jobs running with this key: ${jobs}`;
}
