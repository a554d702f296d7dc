/** What the sandbox has seen: calls per endpoint and method, statuses, creates per client_id. */
export interface CountersSnapshot {
  total: number;
  /** `"POST /user"` → calls, whatever their answer. */
  calls: Record<string, number>;
  /** `"201"` → answers with that status (`"reset"` for dropped connections). */
  statuses: Record<string, number>;
  /** kind → client_id → creates applied (200 or 203). More than 1 means a duplicate create. */
  creates: Record<string, Record<string, number>>;
  /**
   * When the first and the last counted call were answered (ms since the epoch), so a
   * client's throughput as the platform sees it is `total / (lastAt - firstAt)`.
   */
  firstAt?: number;
  lastAt?: number;
}

/** Creates without a client_id are counted under this name. */
export const NO_CLIENT_ID = '(none)';

export class SandboxCounters {
  private total = 0;
  private readonly calls = new Map<string, number>();
  private readonly statuses = new Map<string, number>();
  private readonly creates = new Map<string, Map<string, number>>();
  private firstAt: number | undefined;
  private lastAt: number | undefined;

  recordCall(endpoint: string, status: number | 'reset'): void {
    this.total += 1;
    this.lastAt = Date.now();
    this.firstAt ??= this.lastAt;
    this.calls.set(endpoint, (this.calls.get(endpoint) ?? 0) + 1);
    const key = String(status);
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
  }

  recordCreate(kind: string, clientId: string | undefined): void {
    let perKind = this.creates.get(kind);
    if (!perKind) {
      perKind = new Map();
      this.creates.set(kind, perKind);
    }
    const key = clientId ?? NO_CLIENT_ID;
    perKind.set(key, (perKind.get(key) ?? 0) + 1);
  }

  /** Calls made to one endpoint, e.g. `callsTo('POST', '/user')`. */
  callsTo(method: string, pattern: string): number {
    return this.calls.get(`${method} ${pattern}`) ?? 0;
  }

  createsOf(kind: string, clientId: string): number {
    return this.creates.get(kind)?.get(clientId) ?? 0;
  }

  /** The client_ids created more than once, per kind. */
  duplicates(): Record<string, string[]> {
    const result: Record<string, string[]> = {};
    for (const [kind, perKind] of this.creates) {
      const twice = [...perKind].filter(([id, count]) => count > 1 && id !== NO_CLIENT_ID).map(([id]) => id);
      if (twice.length > 0) result[kind] = twice;
    }
    return result;
  }

  snapshot(): CountersSnapshot {
    return {
      total: this.total,
      calls: Object.fromEntries(this.calls),
      statuses: Object.fromEntries(this.statuses),
      creates: Object.fromEntries(
        [...this.creates].map(([kind, perKind]) => [kind, Object.fromEntries(perKind)]),
      ),
      ...(this.firstAt === undefined ? {} : { firstAt: this.firstAt, lastAt: this.lastAt }),
    };
  }

  reset(): void {
    this.total = 0;
    this.firstAt = undefined;
    this.lastAt = undefined;
    this.calls.clear();
    this.statuses.clear();
    this.creates.clear();
  }
}
