import type { FaultConfig, FaultRate } from './fault-config.js';

export type FaultKind = 'error500' | 'error503' | 'reset' | 'commitDrop' | 'commit500';

/** Rolls the dice of the current fault config; `next: N` rates count down to zero. */
export class FaultInjector {
  private config: FaultConfig = {};
  private random: () => number = Math.random;
  private isActive = false;

  constructor(config: FaultConfig = {}) {
    this.set(config);
  }

  set(config: FaultConfig): void {
    this.config = structuredClone(config);
    this.random = config.seed === undefined ? Math.random : seededRandom(config.seed);
    this.isActive = Object.keys(config).some((key) => key !== 'seed');
  }

  current(): FaultConfig {
    return structuredClone(this.config);
  }

  /** Whether any fault is configured; checked on every request, so it is kept, not computed. */
  get active(): boolean {
    return this.isActive;
  }

  latencyMs(): number {
    const latency = this.config.latency;
    if (!latency) return 0;
    return latency.minMs + (latency.maxMs - latency.minMs) * this.random();
  }

  /** Whether this fault fires for the current request; a `next` count is used up by firing. */
  fires(kind: FaultKind): boolean {
    const rate: FaultRate | undefined = this.config[kind];
    if (!rate) return false;
    if ('next' in rate) {
      if (rate.next <= 0) return false;
      rate.next -= 1;
      return true;
    }
    return rate.fraction > 0 && this.random() < rate.fraction;
  }
}

/** mulberry32: small, fast and good enough for fault dice. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
