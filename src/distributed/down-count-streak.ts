/** Why `DownCountStreak.observe` says stop: the streak's limit, or all a finished phase sent. */
export interface DownStop {
  count: number;
  /** The phase ended with every intent it sent failed that way, fewer than the limit. */
  wholePhase: boolean;
}

/**
 * A platform-down streak (`sync/execute/platform-down.ts`) as the coordinator can see it:
 * it reads counts of the phase's results, look by look, not the outcomes one by one. A look
 * whose new sent results are all platform-wide failures extends the streak; one with any
 * other sent result ends it, whatever the order they came in within the look.
 */
export class DownCountStreak {
  private sent = 0;
  private down = 0;
  private streak = 0;

  constructor(private readonly limit: number) {}

  /**
   * `sent` is the phase's results that made a call so far; `down` its platform-wide
   * failures, read after `sent` (undefined when no failure came since the last look).
   * Answers how many failed in a row when the run must stop.
   */
  observe(sent: number, down: number | undefined, phaseOver: boolean): DownStop | undefined {
    const newSent = sent - this.sent;
    // Read after `sent`, `down` may count results that came in between: those are counted
    // at the next look, where `sent` has them too.
    const newDown = down === undefined ? 0 : Math.max(0, Math.min(down - this.down, newSent));
    if (newSent > 0) this.streak = newDown === newSent ? this.streak + newSent : 0;
    this.sent = sent;
    this.down += newDown;
    if (this.streak >= this.limit) return { count: this.streak, wholePhase: false };
    return phaseOver && sent > 0 && this.streak === sent
      ? { count: this.streak, wholePhase: true }
      : undefined;
  }
}
