import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

/**
 * The process's Prometheus metrics (docs/metrics.md): one registry per process, filled by the
 * layers that see each thing happen (the platform client its calls, the ledger the results
 * it records, notifications their deliveries) and read by `/metrics` on the dashboard and
 * on `evsync worker --metrics-port`. Labels are words and kinds, never keys or values.
 *
 * The layers note into plain tallies; the registry is made by the first scrape, which hands
 * them over (`collect`). prom-client and the OpenTelemetry API it loads took some 50 ms of
 * every start of the CLI, and only a dashboard or a worker's metrics port ever reads them.
 */
export function metricsRegistry(): PromClient.Registry {
  registry ??= makeRegistry();
  return registry;
}

let registry: PromClient.Registry | undefined;

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
const rateWaits = { count: 0, seconds: 0 };
/** Results by action, then kind (`evsync_intents_total`). */
const intentTally = new Map<string, Map<string, number>>();
/** Jobs taken off a queue by outcome (`evsync_worker_pickups_total`). */
const pickupTally = new Map<'taken' | 'refused', number>();
/** Deliveries by channel type, then status (`evsync_notifications_total`). */
const notificationTally = new Map<'webhook' | 'email', Map<'sent' | 'failed', number>>();

/** Adds `n` to one count of a tally. */
function tally<K>(counts: Map<K, number>, key: K, n = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

/** The inner map of a two-level tally, made on first use. */
function inner<K, L>(counts: Map<K, Map<L, number>>, key: K): Map<L, number> {
  let found = counts.get(key);
  if (found === undefined) counts.set(key, (found = new Map<L, number>()));
  return found;
}

/** Hands a two-level tally to a labelled counter, and empties it. */
function drain<K extends string, L extends string>(
  counts: Map<K, Map<L, number>>,
  inc: (outer: K, inner: L, n: number) => void,
): void {
  for (const [outer, inners] of counts) {
    for (const [label, n] of inners) if (n > 0) inc(outer, label, n);
    inners.clear();
  }
}

function makeRegistry(): PromClient.Registry {
  // Required rather than imported, as the platform client's undici is (http-transport.ts):
  // prom-client is CommonJS, so this is the very module an `import` would give.
  const prom = createRequire(import.meta.url)('prom-client') as typeof PromClient;
  const made = new prom.Registry();
  const registers = [made];
  new prom.Counter({
    name: 'evsync_platform_calls_total',
    help: 'Platform calls (each attempt) by outcome: 2xx, 4xx, 429, 5xx, reset (not sent or refused), lost (answer lost)',
    labelNames: ['outcome', 'method'] as const,
    registers,
    collect(this: PromClient.Counter<'outcome' | 'method'>) {
      drain(callTally, (outcome, method, n) => this.inc({ outcome, method }, n));
    },
  });
  new prom.Histogram({
    name: 'evsync_platform_call_duration_seconds',
    help: 'Duration of each platform call attempt, by outcome',
    labelNames: ['outcome'] as const,
    buckets: CALL_SECONDS_BUCKETS,
    registers,
    collect(this: PromClient.Histogram<'outcome'>) {
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
  new prom.Counter({
    name: 'evsync_rate_limit_waits_total',
    help: 'Platform calls that waited for the rate limit (more than 1 ms) before being sent',
    registers,
    collect(this: PromClient.Counter) {
      if (rateWaits.count > 0) this.inc(rateWaits.count);
      rateWaits.count = 0;
    },
  });
  new prom.Counter({
    name: 'evsync_rate_limit_wait_seconds_total',
    help: 'Time platform calls spent waiting for the rate limit',
    registers,
    collect(this: PromClient.Counter) {
      if (rateWaits.seconds > 0) this.inc(rateWaits.seconds);
      rateWaits.seconds = 0;
    },
  });
  new prom.Counter({
    name: 'evsync_intents_total',
    help: 'Final results recorded in the ledger by this process, by intent kind and action',
    labelNames: ['kind', 'action'] as const,
    registers,
    collect(this: PromClient.Counter<'kind' | 'action'>) {
      drain(intentTally, (action, kind, n) => this.inc({ kind, action }, n));
    },
  });
  /**
   * Intent jobs a worker took off a queue, by outcome: `taken` (handled), `refused` (its
   * conference's credentials are not in this worker's environment: put back for another).
   * Lanes keep refusals to jobs of the shared queue of releases before lanes
   * (docs/distributed.md, "Several conferences").
   */
  new prom.Counter({
    name: 'evsync_worker_pickups_total',
    help: 'Intent jobs this worker took off a queue, by outcome (taken, refused)',
    labelNames: ['outcome'] as const,
    registers,
    collect(this: PromClient.Counter<'outcome'>) {
      for (const [outcome, n] of pickupTally) if (n > 0) this.inc({ outcome }, n);
      pickupTally.clear();
    },
  });
  new prom.Counter({
    name: 'evsync_notifications_total',
    help: 'Notification deliveries by channel type (webhook, email) and status (sent, failed)',
    labelNames: ['channel', 'status'] as const,
    registers,
    collect(this: PromClient.Counter<'channel' | 'status'>) {
      drain(notificationTally, (channel, status, n) => this.inc({ channel, status }, n));
    },
  });
  return made;
}

/** Notes `n` final results of one kind and action (`evsync_intents_total`). */
export function noteIntentResults(kind: string, action: string, n: number): void {
  tally(inner(intentTally, action), kind, n);
}

/** Notes an intent job a worker took off a queue, or put back for another. */
export function notePickup(outcome: 'taken' | 'refused'): void {
  tally(pickupTally, outcome);
}

/** Notes a notification's delivery. */
export function noteNotification(channel: 'webhook' | 'email', status: 'sent' | 'failed'): void {
  tally(inner(notificationTally, channel), status);
}

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
  tally(inner(callTally, outcome), method);
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
  rateWaits.count += 1;
  rateWaits.seconds += seconds;
}
