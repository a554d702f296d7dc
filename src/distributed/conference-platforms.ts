import { createHash } from 'node:crypto';
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
import { WORKER_NOTE_TTL_S, workerNoteKey, type WorkerConferences } from './worker-notes.js';

/** How long a worker whose signature the platform refused hands back its jobs of that key. */
const REFUSED_KEY_MS = 60_000;

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
  /** By lane id and signing key: a key changed in `.env` gets a client of its own. */
  private readonly clients = new Map<string, PlatformClient>();
  private readonly serves = new Set<string>();
  /** Conferences served until their key left this worker's environment. */
  private readonly left = new Set<string>();
  private readonly refuses = new Map<string, string>();
  /** Per conference: the lane, key and variable of the client last given for it. */
  private readonly used = new Map<string, { lane: string; fingerprint: string; variable: string }>();
  /**
   * Keys whose signature the platform refused, by lane: their jobs are handed back until
   * `until`; while so, `evsync status` shows the conference and why.
   */
  private readonly refusedKeys = new Map<
    string,
    { fingerprint: string; until: number; why: string; host: string; variable: string }
  >();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: ConferencePlatformsOptions) {
    this.timer = setInterval(() => void this.note(), (WORKER_NOTE_TTL_S / 3) * 1000);
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
    const id = laneId(config);
    const fingerprint = fingerprintOf(config.signingKey);
    const refusedKey = this.refusedKeys.get(id);
    if (refusedKey !== undefined) {
      if (refusedKey.fingerprint === fingerprint && this.refusesLane(id))
        throw new JobRefused(host, refusedKey.why);
      // The key changed here, or its pause is over: try it again.
      this.refusedKeys.delete(id);
    }
    this.used.set(host, { lane: id, fingerprint, variable: variables.signing_key_env });
    let client = this.clients.get(`${id}:${fingerprint}`);
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
      this.clients.set(`${id}:${fingerprint}`, client);
    }
    if (!this.serves.has(host)) {
      this.serves.add(host);
      this.left.delete(host);
      this.refuses.delete(host);
      this.options.logger.info({ conference: host }, `serving conference ${host}`);
      await this.note();
    }
    return client;
  }

  /**
   * The platform refused this worker's signature for the run's conference (401: nothing was
   * done). Another worker may hold the right key: this one hands the conference's jobs back
   * (`JobRefused`) and leaves its lane (`refusesLane`) for a minute, or until its key changes
   * here; it says so in its log (once a minute) and in its note for `evsync status`, naming the
   * variable its key came from. Answers the refusal to throw for the job.
   */
  signatureRefused(run: RunRecord, problem: string): JobRefused {
    const host = runHost(run);
    const used = this.used.get(host);
    const variable = used?.variable ?? 'its signing key';
    // The platform's answer, without the client's advice (which names the EVSYNC_* defaults).
    const answer = problem.split(' — ')[0];
    const why = `the platform refused the signature of this worker (${answer}); its key here is ${variable}`;
    if (used === undefined) return new JobRefused(host, why);
    // Said when the pause begins; the intents in flight with it answer 401 too.
    const said = this.refusesLane(used.lane);
    this.refusedKeys.set(used.lane, {
      fingerprint: used.fingerprint,
      until: Date.now() + REFUSED_KEY_MS,
      why,
      host,
      variable: used.variable,
    });
    if (!said) {
      this.options.logger.warn(
        { conference: host, variable },
        `${host}: ${why}. This worker hands its intents there back to the others for a minute: fix ${variable} in its environment`,
      );
      void this.note();
    }
    return new JobRefused(host, why);
  }

  /**
   * Whether this worker stays off a lane whose key's signature the platform refused
   * (`signatureRefused`): for a minute, or until the key changes in its environment (a fixed
   * `.env`), which the lanes' refresh asks every second. Before, a fixed key still waited
   * out the minute, and a resume at once was cut off again with the old advice.
   */
  refusesLane(lane: string): boolean {
    const refused = this.refusedKeys.get(lane);
    if (refused === undefined || Date.now() >= refused.until) return false;
    const key = (this.options.env?.() ?? process.env)[refused.variable];
    if (key === undefined || key === '' || fingerprintOf(key) === refused.fingerprint) return true;
    this.refusedKeys.delete(lane);
    this.options.logger.info(
      { conference: refused.host },
      `${refused.host}: ${refused.variable} changed here: serving its lane again`,
    );
    void this.note();
    return false;
  }

  /** Notes this worker's conferences again now: the lanes it takes changed (`LaneWorkers`). */
  lanesChanged(): void {
    void this.note();
  }

  /**
   * The conferences this worker serves now: those it took a job of, while its environment
   * still holds the signing key's variable and the platform has not refused the key. A key
   * gone from `.env` is forgotten: the worker left its lane, and `evsync status` said
   * "serves" until the note expired.
   */
  private servedNow(): string[] {
    const env = this.options.env?.() ?? process.env;
    /** Whether the key variable of the conference's last client is gone from the environment. */
    const keyGone = (host: string): boolean => {
      const used = this.used.get(host);
      return used !== undefined && (env[used.variable] ?? '') === '';
    };
    const hosts: string[] = [];
    for (const host of this.serves) {
      if (keyGone(host)) {
        this.serves.delete(host);
        this.left.add(host);
      } else {
        const lane = this.used.get(host)?.lane;
        if (lane === undefined || !this.refusesLane(lane)) hosts.push(host);
      }
    }
    // A key put back is no longer "left"; the worker serves its lane again at its next job.
    for (const host of this.left) if (!keyGone(host)) this.left.delete(host);
    return hosts;
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
      serves: this.servedNow(),
      ...(this.left.size > 0 ? { left: [...this.left] } : {}),
      refuses: Object.fromEntries(this.refuses),
      rejected: Object.fromEntries(
        [...this.refusedKeys.entries()]
          .filter(([lane]) => this.refusesLane(lane))
          .map(([, refused]) => [refused.host, refused.why]),
      ),
    };
    await this.options.redis
      .set(workerNoteKey(this.options.prefix, WORKER_NAME), JSON.stringify(note), 'EX', WORKER_NOTE_TTL_S)
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.options.redis.del(workerNoteKey(this.options.prefix, WORKER_NAME)).catch(() => 0);
    await Promise.all([...this.clients.values()].map((client) => client.close()));
  }
}

/** A signing key as this worker compares it: never kept, nor logged, itself. */
function fingerprintOf(signingKey: string): string {
  return createHash('sha256').update(signingKey).digest('hex');
}
