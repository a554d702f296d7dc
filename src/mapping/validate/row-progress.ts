const REDRAW_MS = 200;

/**
 * A one-line progress display on a terminal (stderr): rows read and the rate. Sources are
 * streams of unknown length, so it counts rather than fills a bar. Silent when stderr is not
 * a TTY (logs, CI), so that machine-read output stays clean.
 */
export class RowProgress {
  private rows = 0;
  private readonly started = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private label = '';

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    if (!stream.isTTY) return;
    this.timer = setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
  }

  step(label: string): void {
    this.label = label;
  }

  tick(): void {
    this.rows++;
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.stream.write('\r\u001b[2K');
  }

  private draw(): void {
    const seconds = (performance.now() - this.started) / 1000;
    const rate = seconds > 0 ? Math.round(this.rows / seconds) : 0;
    const spinner = '|/-\\'[Math.floor(seconds * 5) % 4] ?? '';
    this.stream.write(
      `\r\u001b[2K${spinner} ${this.label}: ${this.rows.toLocaleString('en')} rows read (${rate.toLocaleString('en')} rows/s)`,
    );
  }
}
