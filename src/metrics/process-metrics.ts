import { AsyncLocalStorage } from 'node:async_hooks';
import { Counter, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (docs/metrics.md): one registry per process, filled by the
 * layers that see each thing happen (the platform client its calls, the ledger the results
 * it records, notifications their deliveries) and read by `/metrics` on the dashboard and
 * on `evsync worker --metrics-port`. Labels are words and kinds, never keys or values.
 */
export const metricsRegistry = new Registry();

/** How a platform call ended, as the failure day is told (2xx, 4xx, 429, 5xx, reset, lost answer). */
export type CallOutcome = '2xx' | '4xx' | '429' | '5xx' | 'reset' | 'lost';

/** The duration histogram's buckets, in seconds. */
const CALL_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Calls noted since the metrics were last read: counts per outcome and method, and per
 * outcome the count and sum of durations in each bucket (the last one past 30 s). prom-client
 * hashes and checks the labels of every `inc` and `observe`, a few µs of each call at
 * thousands of calls a second (docs/sync-engine.md, "CPU per call"); the tally is handed
 * over when a scrape reads the metrics (`collect`), the same numbers in the end.
 */
const callTally = new Map<CallOutcome, Map<string, number>>();
const secondsTally = new Map<CallOutcome, { counts: number[]; sums: number[] }>();

export const platformCalls = new Counter({
  name: 'evsync_platform_calls_total',
  help: 'Platform calls (each attempt) by outcome: 2xx, 4xx, 429, 5xx, reset (not sent or refused), lost (answer lost)',
  labelNames: ['outcome', 'method'] as const,
  registers: [metricsRegistry],
  collect() {
    for (const [outcome, methods] of callTally) {
      for (const [method, count] of methods) if (count > 0) this.inc({ outcome, method }, count);
      methods.clear();
    }
  },
});

export const platformCallSeconds = new Histogram({
  name: 'evsync_platform_call_duration_seconds',
  help: 'Duration of each platform call attempt, by outcome',
  labelNames: ['outcome'] as const,
  buckets: CALL_SECONDS_BUCKETS,
  registers: [metricsRegistry],
  collect() {
    for (const [outcome, { counts, sums }] of secondsTally) {
      for (let bucket = 0; bucket < counts.length; bucket += 1) {
        const count = counts[bucket]!;
        if (count === 0) continue;
        // Each call's duration as the mean of its bucket's: it falls in the same bucket,
        // and the histogram's sum and count come out as the calls' own.
        const upper = CALL_SECONDS_BUCKETS[bucket] ?? Number.POSITIVE_INFINITY;
        const mean = Math.min(sums[bucket]! / count, upper);
        for (let call = 0; call < count; call += 1) this.observe({ outcome }, mean);
        counts[bucket] = 0;
        sums[bucket] = 0;
      }
    }
  },
});

export const rateLimitWaits = new Counter({
  name: 'evsync_rate_limit_waits_total',
  help: 'Platform calls that waited for the rate limit (more than 1 ms) before being sent',
  registers: [metricsRegistry],
});

export const rateLimitWaitSeconds = new Counter({
  name: 'evsync_rate_limit_wait_seconds_total',
  help: 'Time platform calls spent waiting for the rate limit',
  registers: [metricsRegistry],
});

export const intentResults = new Counter({
  name: 'evsync_intents_total',
  help: 'Final results recorded in the ledger by this process, by intent kind and action',
  labelNames: ['kind', 'action'] as const,
  registers: [metricsRegistry],
});

/**
 * Intent jobs a worker took off a queue, by outcome: `taken` (handled), `refused` (its
 * conference's credentials are not in this worker's environment: put back for another).
 * Lanes keep refusals to jobs of the shared queue of releases before lanes
 * (docs/distributed.md, "Several conferences").
 */
export const workerPickups = new Counter({
  name: 'evsync_worker_pickups_total',
  help: 'Intent jobs this worker took off a queue, by outcome (taken, refused)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const notificationsSent = new Counter({
  name: 'evsync_notifications_total',
  help: 'Notification deliveries by channel type (webhook, email) and status (sent, failed)',
  labelNames: ['channel', 'status'] as const,
  registers: [metricsRegistry],
});

/** The outcome of a call attempt from its status, or from how it failed without one. */
export function callOutcomeOf(status: number | undefined, failure?: 'reset' | 'lost'): CallOutcome {
  if (failure) return failure;
  if (status === undefined) return 'reset';
  if (status === 429) return '429';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  return '2xx';
}

/** One platform call attempt as listeners are told it. */
export interface ObservedCall {
  outcome: CallOutcome;
  method: string;
  seconds: number;
  /** When it ended (ms since the epoch). */
  at: number;
  /** The run the call was made for, when the caller said (`runCalls.run`). */
  runId: string | undefined;
}

/** Which run the calls made inside it belong to: set around each intent's processing. */
export const runCalls = new AsyncLocalStorage<string>();

const listeners = new Set<(call: ObservedCall | RatePause) => void>();

/** A 429 that paused every call, as listeners are told it. */
export interface RatePause {
  outcome: 'pause';
  at: number;
  runId: string | undefined;
  ms: number;
}

/** Listens to every call attempt and rate-limit pause of this process; returns the unsubscribe. */
export function onPlatformCall(listener: (call: ObservedCall | RatePause) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Notes one call attempt: the metrics, and the listeners with the run it was made for. */
export function noteCall(outcome: CallOutcome, method: string, seconds: number): void {
  let methods = callTally.get(outcome);
  if (methods === undefined) callTally.set(outcome, (methods = new Map<string, number>()));
  methods.set(method, (methods.get(method) ?? 0) + 1);
  let durations = secondsTally.get(outcome);
  if (durations === undefined) {
    const buckets = CALL_SECONDS_BUCKETS.length + 1;
    durations = { counts: new Array<number>(buckets).fill(0), sums: new Array<number>(buckets).fill(0) };
    secondsTally.set(outcome, durations);
  }
  let bucket = 0;
  while (bucket < CALL_SECONDS_BUCKETS.length && seconds > CALL_SECONDS_BUCKETS[bucket]!) bucket += 1;
  durations.counts[bucket]! += 1;
  durations.sums[bucket]! += seconds;
  if (listeners.size === 0) return;
  const call: ObservedCall = { outcome, method, seconds, at: Date.now(), runId: runCalls.getStore() };
  for (const listener of listeners) listener(call);
}

/** Notes a 429's pause of every call. */
export function notePause(ms: number): void {
  if (listeners.size === 0) return;
  const pause: RatePause = { outcome: 'pause', at: Date.now(), runId: runCalls.getStore(), ms };
  for (const listener of listeners) listener(pause);
}

/** Notes a wait for the rate limit before a call. */
export function noteRateWait(seconds: number): void {
  if (seconds < 0.001) return;
  rateLimitWaits.inc();
  rateLimitWaitSeconds.inc(seconds);
}
