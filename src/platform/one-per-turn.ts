import { performance } from 'node:perf_hooks';

/**
 * Lets callers through one per event-loop turn, in arrival order, while the event loop has
 * time to spare; at once while it has none.
 *
 * Why the transport needs it: undici writes a request on a reused keep-alive socket only in
 * the check phase after the poll phase that dispatched it (it first lets the socket show a
 * pending close or reset). When several answers arrive in one poll phase and each caller
 * handles its answer and dispatches its next call at once, all those next calls are written
 * together in one burst. At a fixed platform latency the burst comes back as a burst, turn
 * after turn, and every answer in it waits for the handling of those before it. Handing the
 * answers back one per turn makes each next call leave as soon as its predecessor is
 * handled, so the calls spread out and stay spread out (docs/platform-client.md, "Why the
 * transport hands answers back one per turn").
 *
 * Spreading pays only while the calls wait for the platform. When the event loop is busy
 * all the time, they wait for the process's own CPU instead: the gate then adds a turn and
 * an immediate to every call and spreads nothing, and it let through the 20,000 calls of
 * a run with no latency at 10–15 % more CPU per call (docs/sync-engine.md, "CPU per call").
 * So the gate steps aside while the loop was busy for {@link BUSY_SHARE} of the last
 * {@link BUSY_WINDOW_MS} or more. (At 20 ms latency and 16 calls in flight it is busy for
 * a fifth to a third of the time; with no latency, 60–100 %.)
 */
export class OnePerTurn {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;
  private readonly busy: () => boolean;

  /** @param busy - whether the event loop is too busy for spreading to pay @defaultValue {@link loopBusy} */
  constructor(busy: () => boolean = loopBusy()) {
    this.busy = busy;
  }

  /** Resolves on a later turn than every caller already waiting. */
  next(): Promise<void> {
    return new Promise((resolve) => this.pass(resolve));
  }

  /**
   * Calls `go` on a later turn than every caller already waiting; while the loop is busy,
   * at once, after everyone waiting. No promise of its own.
   */
  pass(go: () => void): void {
    if (this.busy()) {
      this.releaseAll();
      return go();
    }
    this.waiting.push(go);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.release);
    }
  }

  private readonly release = (): void => {
    if (this.busy()) {
      this.scheduled = false;
      return this.releaseAll();
    }
    const first = this.waiting.shift();
    if (this.waiting.length > 0) setImmediate(this.release);
    else this.scheduled = false;
    first?.();
  };

  /** Everyone waiting, in order; an immediate already scheduled then finds nobody. */
  private releaseAll(): void {
    if (this.waiting.length === 0) return;
    const all = this.waiting.splice(0, this.waiting.length);
    for (const go of all) go();
  }
}

/** The share of the window the loop must have been busy for the gate to step aside. */
export const BUSY_SHARE = 0.8;
/** How often the loop's busy share is read again. */
export const BUSY_WINDOW_MS = 100;

/**
 * Whether the event loop was busy (not waiting in its poll) for {@link BUSY_SHARE} of the
 * last window, read from Node's event-loop utilisation once per {@link BUSY_WINDOW_MS}.
 */
export function loopBusy(now: () => number = () => performance.now()): () => boolean {
  let since = performance.eventLoopUtilization();
  let checkedAt = now();
  let busy = false;
  return () => {
    const at = now();
    if (at - checkedAt < BUSY_WINDOW_MS) return busy;
    const current = performance.eventLoopUtilization();
    busy = performance.eventLoopUtilization(current, since).utilization >= BUSY_SHARE;
    since = current;
    checkedAt = at;
    return busy;
  };
}
