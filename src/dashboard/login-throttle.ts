import type { Logger } from '../log/logger.js';

/**
 * Slows and then locks out wrong tokens, whichever way they come in (the login form,
 * `/login?token=`, `Authorization: Bearer`), per client address and over all addresses
 * together (docs/dashboard.md, "Wrong tokens").
 *
 * - Every wrong token is answered late: an address's first one after `delayMs`, each next
 *   one twice as late (up to `maxDelayMs`), and never two wrong answers, whatever their
 *   addresses, less than `spacingMs` apart. Concurrency buys nothing: wrong answers leave
 *   one at a time, at most `1000 / spacingMs` a second.
 * - An address with `addressFailures` wrong tokens is locked out for `lockoutMs`, the next
 *   time twice as long, up to `maxLockoutMs`; all addresses together with
 *   `globalFailures` within `globalWindowMs` are locked out for `globalLockoutMs`. While
 *   locked out, and while `maxWaiting` wrong answers already wait for their turn, a token
 *   is not even compared: the answer is a 429, the same for a right and a wrong one.
 * - A lockout is a window that ends: what comes during it is not counted. A right token
 *   clears its address's count; sessions already open never meet the throttle.
 */
export interface LoginThrottleOptions {
  /** Wrong tokens from one address before it is locked out. @defaultValue 10 */
  addressFailures?: number;
  /** An address's first lockout; each next one doubles. @defaultValue 60 000 ms */
  lockoutMs?: number;
  /** @defaultValue 15 minutes */
  maxLockoutMs?: number;
  /** Wrong tokens from all addresses within `globalWindowMs` before all are locked out. @defaultValue 100 */
  globalFailures?: number;
  /** @defaultValue 10 minutes */
  globalWindowMs?: number;
  /** @defaultValue 60 000 ms */
  globalLockoutMs?: number;
  /** The delay of an address's first wrong token; each next one doubles. @defaultValue 250 ms */
  delayMs?: number;
  /** @defaultValue 4 000 ms */
  maxDelayMs?: number;
  /** The least time between two wrong answers, all addresses together. @defaultValue 100 ms */
  spacingMs?: number;
  /** Wrong answers waiting for their turn before tokens are refused unchecked. @defaultValue 32 */
  maxWaiting?: number;
  /** Addresses remembered at most; the longest quiet ones are forgotten first. @defaultValue 10 000 */
  maxAddresses?: number;
}

/** How a token came in, for the log. */
export type LoginWay = 'form' | 'url' | 'bearer';

export type LoginVerdict =
  { outcome: 'right' } | { outcome: 'wrong' } | { outcome: 'locked'; retryAfterSeconds: number };

interface AddressRecord {
  failures: number;
  lockouts: number;
  lockedUntil: number;
  lastFailure: number;
}

const DEFAULTS: Required<LoginThrottleOptions> = {
  addressFailures: 10,
  lockoutMs: 60_000,
  maxLockoutMs: 15 * 60_000,
  globalFailures: 100,
  globalWindowMs: 10 * 60_000,
  globalLockoutMs: 60_000,
  delayMs: 250,
  maxDelayMs: 4_000,
  spacingMs: 100,
  maxWaiting: 32,
  maxAddresses: 10_000,
};

export class LoginThrottle {
  private readonly options: Required<LoginThrottleOptions>;
  private readonly addresses = new Map<string, AddressRecord>();
  private globalWindowStart = 0;
  private globalFailures = 0;
  private globalLockedUntil = 0;
  /** When the last wrong answer already scheduled leaves. */
  private lastSlot = 0;
  private waiting = 0;

  constructor(
    private readonly logger: Logger,
    options: LoginThrottleOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /**
   * Compares a token (`matches`) unless the address or everyone is locked out; a wrong one
   * resolves only when its turn comes. Admission, comparison and scheduling happen in one
   * synchronous step, so concurrent requests cannot all slip in before one is counted.
   */
  async check(address: string, way: LoginWay, matches: () => boolean): Promise<LoginVerdict> {
    const now = Date.now();
    const record = this.addresses.get(address);
    const lockedUntil = Math.max(record?.lockedUntil ?? 0, this.globalLockedUntil);
    if (lockedUntil > now) return locked(lockedUntil - now);
    if (this.waiting >= this.options.maxWaiting) return locked(this.lastSlot - now);
    if (matches()) {
      if (record) {
        record.failures = 0;
        record.lockouts = 0;
      }
      return { outcome: 'right' };
    }
    const wait = this.failed(address, way, now);
    this.waiting += 1;
    try {
      await new Promise((resolve) => setTimeout(resolve, wait));
    } finally {
      this.waiting -= 1;
    }
    return { outcome: 'wrong' };
  }

  /** Counts a wrong token; answers how long until its answer may leave. */
  private failed(address: string, way: LoginWay, now: number): number {
    const o = this.options;
    const record = this.recordOf(address, now);
    record.failures += 1;
    record.lastFailure = now;
    const delay = Math.min(o.delayMs * 2 ** (record.failures - 1), o.maxDelayMs);
    const slot = Math.max(now + delay, this.lastSlot + o.spacingMs);
    this.lastSlot = slot;
    // The guess itself is never logged: a near miss, or the token pasted into the wrong field.
    const fields = { address, way, failures: record.failures };
    if (record.failures >= o.addressFailures) {
      const lockout = Math.min(o.lockoutMs * 2 ** record.lockouts, o.maxLockoutMs);
      record.lockouts += 1;
      record.failures = 0;
      record.lockedUntil = slot + lockout;
      this.logger.warn({ ...fields, lockedForMs: lockout }, 'dashboard: wrong token; address locked out');
    } else {
      this.logger.warn(fields, 'dashboard: wrong token');
    }
    if (now - this.globalWindowStart > o.globalWindowMs) {
      this.globalWindowStart = now;
      this.globalFailures = 0;
    }
    this.globalFailures += 1;
    if (this.globalFailures >= o.globalFailures) {
      this.globalFailures = 0;
      this.globalWindowStart = now;
      this.globalLockedUntil = slot + o.globalLockoutMs;
      this.logger.warn(
        { failures: o.globalFailures, lockedForMs: o.globalLockoutMs },
        'dashboard: too many wrong tokens from all addresses; every token login locked out',
      );
    }
    return slot - now;
  }

  private recordOf(address: string, now: number): AddressRecord {
    const found = this.addresses.get(address);
    // A record whose last lockout would have ended long ago starts afresh.
    if (found && now - found.lastFailure < this.options.maxLockoutMs * 2) {
      // Kept last in the map's order: the first entries are the longest quiet.
      this.addresses.delete(address);
      this.addresses.set(address, found);
      return found;
    }
    const fresh = { failures: 0, lockouts: 0, lockedUntil: 0, lastFailure: now };
    this.addresses.delete(address);
    this.addresses.set(address, fresh);
    while (this.addresses.size > this.options.maxAddresses) {
      this.addresses.delete(this.addresses.keys().next().value!);
    }
    return fresh;
  }
}

function locked(ms: number): LoginVerdict {
  return { outcome: 'locked', retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)) };
}
