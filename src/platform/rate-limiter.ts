export interface RateLimiterOptions {
  /**
   * Steady request rate. The platform's limits are not published: set it from what the
   * operator agreed.
   * @defaultValue 10
   */
  requestsPerSecond?: number;
  /**
   * Requests that may start back to back after a quiet spell.
   * @defaultValue a millisecond's worth: 1 (evenly spaced) up to 1,000 requests/s
   */
  burst?: number;
  /**
   * Requests in flight at once.
   * @defaultValue 4
   */
  concurrency?: number;
  /**
   * The rate is multiplied by this on a 429.
   * @defaultValue 0.5
   */
  slowdownFactor?: number;
  /**
   * The rate never drops below this share of `requestsPerSecond`.
   * @defaultValue 0.1
   */
  minRateShare?: number;
  /**
   * After a 429, the rate climbs back by this share of `requestsPerSecond` each second.
   * @defaultValue 0.05 (from half to full in 10 s)
   */
  recoveryPerSecond?: number;
  /** @defaultValue `Date.now` */
  now?: () => number;
}

type Release = () => void;

/**
 * What the client's rate-limit layer needs of a limiter: this file's in-process one, or
 * one shared by processes (distributed mode keeps its bucket in Redis).
 */
export interface RequestLimiter {
  /** Requests in flight at once in this process. */
  readonly concurrency: number;
  /** The rate now allowed, in requests per second. */
  readonly currentRate: number;
  /** Waits for a token and a free slot; call the returned function when the request ends. */
  acquire(signal?: AbortSignal): Promise<Release>;
  /** A 429 was seen: everyone waits `retryAfterMs` and the rate is cut; answers whether this call cut it. */
  slowDown(retryAfterMs?: number): boolean;
}

/** Several 429s from requests already in flight are one signal, not many. */
const SLOWDOWN_COOLDOWN_MS = 1_000;

/**
 * A token bucket plus a concurrency cap, shared by everyone who holds the same instance.
 * The bucket is kept as its equivalent "next token at" schedule (GCRA), so a timer that
 * fires late does not lose throughput. A 429 pauses all callers for the `Retry-After` and
 * cuts the rate, which then recovers linearly: the next burst does not hit the same wall.
 */
export class RateLimiter implements RequestLimiter {
  readonly maxRate: number;
  readonly burst: number;
  readonly concurrency: number;
  private readonly slowdownFactor: number;
  private readonly minRate: number;
  private readonly recoveryPerMs: number;
  private readonly now: () => number;
  /** When the bucket next holds a whole token (with `burst - 1` more allowed ahead of it). */
  private nextAt = Number.NEGATIVE_INFINITY;
  private pausedUntil = 0;
  private cutRate: number;
  private cutAt = Number.NEGATIVE_INFINITY;
  private inFlight = 0;
  private readonly waiters: Array<(release: Release) => void> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(options: RateLimiterOptions = {}) {
    this.maxRate = positive(options.requestsPerSecond ?? 10, 'requestsPerSecond');
    // A timer acts on whole milliseconds at best, so by default a millisecond's tokens may
    // go together: 1 up to 1,000 requests/s, 10 at 10,000/s.
    this.burst = Math.max(1, Math.floor(positive(options.burst ?? Math.ceil(this.maxRate / 1000), 'burst')));
    this.concurrency = Math.max(1, Math.floor(positive(options.concurrency ?? 4, 'concurrency')));
    this.slowdownFactor = options.slowdownFactor ?? 0.5;
    this.minRate = this.maxRate * (options.minRateShare ?? 0.1);
    this.recoveryPerMs = (this.maxRate * (options.recoveryPerSecond ?? 0.05)) / 1000;
    this.now = options.now ?? Date.now;
    this.cutRate = this.maxRate;
  }

  /**
   * Waits for a token and a free slot; call the returned function when the request ends.
   * An aborted `signal` takes the caller out of the queue and rejects with its reason.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      let listening = false;
      let served = false;
      const waiter = (release: Release): void => {
        served = true;
        if (listening) signal?.removeEventListener('abort', onAbort);
        resolve(release);
      };
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index !== -1) this.waiters.splice(index, 1);
        reject(signal?.reason as Error);
        this.pump();
      };
      this.waiters.push(waiter);
      this.pump();
      // Only a caller left waiting listens for the abort: one served at once (most calls
      // of a run below its rate) never adds and removes a listener.
      if (signal !== undefined && !served) {
        listening = true;
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  /**
   * A 429 was seen: everyone waits `retryAfterMs`, and the rate is cut. Answers whether
   * this call cut it (the others within a second only extend the pause).
   */
  slowDown(retryAfterMs = 0): boolean {
    const now = this.now();
    const cut = now - this.cutAt >= SLOWDOWN_COOLDOWN_MS;
    if (cut) {
      this.cutRate = Math.max(this.minRate, this.rateAt(now) * this.slowdownFactor);
      this.cutAt = now;
    }
    this.pausedUntil = Math.max(this.pausedUntil, now + Math.max(0, retryAfterMs));
    // No saved-up burst survives a 429: one request at the pause's end, then the cut rate.
    const restart = Math.max(now, this.pausedUntil);
    this.nextAt = Math.max(this.nextAt, restart + (this.burst - 1) * this.intervalAt(restart));
    this.pump();
    return cut;
  }

  /** The rate now allowed, in requests per second. */
  get currentRate(): number {
    return this.rateAt(this.now());
  }

  get queued(): number {
    return this.waiters.length;
  }

  get active(): number {
    return this.inFlight;
  }

  private rateAt(now: number): number {
    const since = Math.max(0, now - Math.max(this.cutAt, this.pausedUntil));
    return Math.min(this.maxRate, this.cutRate + since * this.recoveryPerMs);
  }

  private intervalAt(now: number): number {
    return 1000 / this.rateAt(now);
  }

  private pump(timerDue?: number): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.waiters.length > 0 && this.inFlight < this.concurrency) {
      const now = this.now();
      if (now < this.pausedUntil) return this.wake(this.pausedUntil - now);
      const interval = this.intervalAt(now);
      const allowedAt = this.nextAt - (this.burst - 1) * interval;
      if (now < allowedAt) return this.wake(allowedAt - now);
      // Behind the schedule by less than one interval, or by no more than our own timer
      // fired late (a busy event loop): stay on it, so the average rate holds. Idle for
      // longer: start a new schedule from now.
      const late = timerDue === undefined ? 0 : Math.max(0, now - timerDue);
      const base = now - this.nextAt > interval + late ? now : this.nextAt;
      this.nextAt = base + interval;
      this.inFlight += 1;
      this.waiters.shift()?.(this.releaser());
    }
  }

  /**
   * Wakes `pump` when the next token (or the pause's end) is due. A timer cannot wait less
   * than a millisecond, so above 1,000 requests/s it fires after several intervals: it is
   * late from the moment the token was due, not from the rounded-up delay, and `pump`
   * grants every token due since (otherwise a 10,000/s limit gave one token a timer,
   * about 900/s).
   */
  private wake(ms: number): void {
    const due = this.now() + ms;
    this.timer = setTimeout(() => this.pump(due), Math.max(1, Math.ceil(ms)));
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      this.pump();
    };
  }
}

function positive(value: number, name: string): number {
  if (!(value > 0) || !Number.isFinite(value))
    throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}
