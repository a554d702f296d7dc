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
   * `sent` (results that made a call) and `down` (platform-wide failures among them) are the
   * phase's totals at this look. Answers how many failed in a row when the run must stop:
   * at the limit, or when every intent a finished phase sent failed that way.
   */
  observe(sent: number, down: number, phaseOver: boolean): number | undefined {
    const newSent = sent - this.sent;
    if (newSent > 0) this.streak = down - this.down === newSent ? this.streak + newSent : 0;
    this.sent = sent;
    this.down = down;
    const stop = this.streak >= this.limit || (phaseOver && sent > 0 && this.streak === sent);
    return stop ? this.streak : undefined;
  }
}
