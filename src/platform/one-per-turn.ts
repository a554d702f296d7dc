/**
 * Lets callers through one per event-loop turn, in arrival order.
 *
 * Why the transport needs it: undici writes a request on a reused keep-alive socket only in
 * the check phase after the poll phase that dispatched it (it first lets the socket show a
 * pending close or reset). When several answers arrive in one poll phase and each caller
 * handles its answer and dispatches its next call at once, all those next calls are written
 * together in one burst. At a fixed platform latency the burst comes back as a burst, turn
 * after turn, and every answer in it waits for the handling of those before it. Handing the
 * answers back one per turn makes each next call leave as soon as its predecessor is
 * handled, so the calls spread out and stay spread out.
 */
export class OnePerTurn {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Resolves on a later turn than every caller already waiting. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.release);
      }
    });
  }

  private readonly release = (): void => {
    const first = this.waiting.shift();
    first?.();
    if (this.waiting.length > 0) setImmediate(this.release);
    else this.scheduled = false;
  };
}
