import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import type { RunRecord } from '../model/run-record.js';
import { PlatformClient } from '../platform/platform-client.js';
import { platformRefOfRun, platformVariables } from '../config/conference.js';
import { conferenceConfigIn, runHost } from './conference-refusal.js';
import { JobRefused, WORKER_NAME } from './intent-job.js';
import { laneConfigIn, laneId, readLanes } from './lanes.js';
import { platformBucket } from './open-distributed.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

/** What a worker notes in Redis of the conferences it served and refused (`evsync status`). */
export interface WorkerConferences {
  worker: string;
  serves: string[];
  refuses: Record<string, string>;
  /** Conferences whose platform refused this worker's signature, and why. */
  rejected?: Record<string, string>;
}

const noteKey = (prefix: string, worker: string): string => `${prefix}:evsync-worker:${worker}`;
/** A note outlives its worker by at most this long: refreshed while the worker lives. */
const NOTE_TTL_S = 60;

export interface ConferencePlatformsOptions {
  redis: Redis;
  prefix: string;
  /** Intents this process sends at once, per conference. */
  concurrency: number;
  logger: Logger;
  /** A 429's pause on a key: every worker stops taking jobs of its lane for as long. */
  onPause: (ms: number, lane: string) => void;
  /** This worker's environment as it is now. @defaultValue `process.env` */
  env?: () => NodeJS.ProcessEnv;
}

/**
 * A worker's clients, one per conference (base URL and key id), each signed with that
 * conference's key as this worker's environment holds it under the names the run's job
 * gave (`platform:`, else `EVSYNC_*`), and each drawing from that key's shared bucket in
 * Redis: the rate limit is per conference key, as the platform counts it. A run whose
 * conference this environment does not name, or names at another URL, is refused: a
 * worker never sends a job to another conference than the job's.
 */
export class ConferencePlatforms {
  private readonly clients = new Map<string, PlatformClient>();
  private readonly serves = new Set<string>();
  private readonly refuses = new Map<string, string>();
  /** Conferences whose platform refused this worker's signature, and why (`signatureRefused`). */
  private readonly rejected = new Map<string, string>();
  private readonly rejectedSaidAt = new Map<string, number>();
  /** The variable each conference's signing key came from here, for messages. */
  private readonly signingVariable = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: ConferencePlatformsOptions) {
    this.timer = setInterval(() => void this.note(), (NOTE_TTL_S / 3) * 1000);
    this.timer.unref();
  }

  /**
   * The client for the run's conference; throws `JobRefused` when this worker has none. A job
   * taken from a lane (`lane`, its id) may also be signed with the lane's key as this
   * environment holds it under other names: the same base URL and key id (`laneConfigIn`).
   */
  async platformFor(run: RunRecord, lane?: string): Promise<PlatformClient> {
    const ref = platformRefOfRun(run);
    const host = runHost(run);
    const env = this.options.env?.() ?? process.env;
    let found = conferenceConfigIn(ref, run.conference?.baseUrl ?? null, env);
    let variables = platformVariables(ref);
    if ('refused' in found && lane !== undefined) {
      const lanes = await readLanes(this.options.redis, this.options.prefix);
      const note = lanes.get(lane);
      const held = note === undefined ? undefined : laneConfigIn(note, lanes.values(), env);
      if (held !== undefined && (run.conference === null || held.config.baseUrl === run.conference.baseUrl)) {
        found = { config: held.config };
        variables = held.variables;
      }
    }
    if ('refused' in found) return this.refuse(host, found.refused);
    const { config } = found;
    this.signingVariable.set(host, variables.signing_key_env);
    const id = laneId(config);
    let client = this.clients.get(id);
    if (client === undefined) {
      client = PlatformClient.fromConfig(config, {
        rateLimit: new RedisRateLimiter({
          redis: this.options.redis,
          key: platformBucket(this.options.prefix, config),
          concurrency: this.options.concurrency,
          onPause: (ms) => this.options.onPause(ms, id),
        }),
        logger: this.options.logger,
      });
      this.clients.set(id, client);
    }
    if (!this.serves.has(host)) {
      this.serves.add(host);
      this.refuses.delete(host);
      this.options.logger.info({ conference: host }, `serving conference ${host}`);
      await this.note();
    }
    return client;
  }

  /**
   * The platform refused this worker's signature for the run's conference (401): its rows
   * there fail while the other workers' succeed, so this worker says so in its log (once a
   * minute) and in its note for `evsync status`, naming the variable its key came from.
   */
  signatureRefused(run: RunRecord, problem: string): void {
    const host = runHost(run);
    const variable = this.signingVariable.get(host) ?? 'its signing key';
    // The platform's answer, without the client's advice (which names the EVSYNC_* defaults).
    const answer = problem.split(' — ')[0];
    const why = `the platform refuses this worker's signature (${answer}); its key here is ${variable}`;
    const now = Date.now();
    if (this.rejected.get(host) === why && now - (this.rejectedSaidAt.get(host) ?? 0) < 60_000) return;
    this.rejected.set(host, why);
    this.rejectedSaidAt.set(host, now);
    this.options.logger.warn(
      { conference: host, variable },
      `${host}: ${why}. The intents this worker sends there fail: fix ${variable} in this worker's environment`,
    );
    void this.note();
  }

  /** Notes a refusal decided elsewhere (a job of another ledger) for `evsync status`. */
  noteRefused(what: string, reason: string): void {
    this.refuses.set(what, reason);
    void this.note();
  }

  private async refuse(host: string, reason: string): Promise<never> {
    if (this.refuses.get(host) !== reason) {
      this.refuses.set(host, reason);
      this.options.logger.warn(
        { conference: host, reason },
        `refusing intents of ${host}: ${reason}; another worker takes them`,
      );
      await this.note();
    }
    throw new JobRefused(host, reason);
  }

  /** Notes this worker's conferences in Redis for `evsync status`; best effort. */
  private async note(): Promise<void> {
    const note: WorkerConferences = {
      worker: WORKER_NAME,
      serves: [...this.serves],
      refuses: Object.fromEntries(this.refuses),
      rejected: Object.fromEntries(this.rejected),
    };
    await this.options.redis
      .set(noteKey(this.options.prefix, WORKER_NAME), JSON.stringify(note), 'EX', NOTE_TTL_S)
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.options.redis.del(noteKey(this.options.prefix, WORKER_NAME)).catch(() => 0);
    await Promise.all([...this.clients.values()].map((client) => client.close()));
  }
}

/** The notes of the workers alive, by worker name (`host:pid`). */
export async function workerConferences(
  redis: Redis,
  prefix: string,
): Promise<Map<string, WorkerConferences>> {
  const notes = new Map<string, WorkerConferences>();
  const pattern = noteKey(prefix, '*');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      const text = await redis.get(key);
      if (text !== null) {
        const note = JSON.parse(text) as WorkerConferences;
        notes.set(note.worker, note);
      }
    }
  } while (cursor !== '0');
  return notes;
}
