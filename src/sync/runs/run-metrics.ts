import { Gauge, Registry } from 'prom-client';
import type { Ledger } from '../../ledger/ledger.js';
import { mergeExpositions } from '../../metrics/exposition.js';
import { metricsRegistry } from '../../metrics/process-metrics.js';
import { messageOf } from '../../errors/evsync-error.js';
import { redactUrl } from '../../log/redaction.js';

/**
 * `/metrics` (docs/metrics.md): this process's counters, the ledger's runs by job and status
 * and each job's last success, read at each scrape, and what `extra` adds (BullMQ's own
 * export of the queues' counts).
 */
export async function metricsText(ledger: Ledger, extra: Array<() => Promise<string>> = []): Promise<string> {
  const fromLedger = new Registry();
  const runs = new Gauge({
    name: 'evsync_runs',
    help: 'Runs in the ledger by job and status',
    labelNames: ['job', 'status'] as const,
    registers: [fromLedger],
  });
  const lastSuccess = new Gauge({
    name: 'evsync_job_last_success_timestamp_seconds',
    help: 'When each job last completed a run with no failed row (Unix time)',
    labelNames: ['job'] as const,
    registers: [fromLedger],
  });
  const [counts, jobs] = await Promise.all([ledger.runCounts(), ledger.jobRuns()]);
  for (const { jobName, status, count } of counts) runs.set({ job: jobName, status }, count);
  // A job run against several conferences has a last success in each: the newest is the job's.
  const newest = new Map<string, number>();
  for (const job of jobs) {
    const at = job.lastSuccess?.finishedAt?.getTime();
    if (at !== undefined && at > (newest.get(job.jobName) ?? 0)) newest.set(job.jobName, at);
  }
  for (const [job, at] of newest) lastSuccess.set({ job }, at / 1000);
  const parts = [await metricsRegistry().metrics(), await fromLedger.metrics()];
  for (const more of extra) parts.push(await more());
  return mergeExpositions(parts);
}

/** The content type Prometheus expects of the text format. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** What `/readyz` answers: each dependency `ok` or why not. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

/** Asks each dependency (the ledger, Redis…) within `timeoutMs`; ready when all answer. */
export async function readiness(
  checks: Record<string, () => Promise<unknown>>,
  timeoutMs = 2000,
): Promise<Readiness> {
  const answers = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await Promise.race([
          check(),
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs).unref(),
          ),
        ]);
        return [name, 'ok'] as const;
      } catch (error) {
        return [name, redactUrl(messageOf(error).split('\n')[0]!)] as const;
      }
    }),
  );
  return { ready: answers.every(([, answer]) => answer === 'ok'), checks: Object.fromEntries(answers) };
}
