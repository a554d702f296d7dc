import type { SourceProgress } from '../../sources/source-row.js';

const REDRAW_MS = 200;
const BAR_WIDTH = 24;

/**
 * A one-line progress display on a terminal (stderr): a bar with the share read and an
 * ETA when the source knows its size (a file), else rows read and the rate. Silent when
 * stderr is not a TTY (logs, CI), so that machine-read output stays clean.
 */
export class RowProgress {
  private rows = 0;
  private started = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private label = '';
  private read: (() => SourceProgress | undefined) | undefined;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    if (!stream.isTTY) return;
    this.timer = setInterval(() => this.stream.write(`\r\u001b[2K${this.line()}`), REDRAW_MS);
    this.timer.unref();
  }

  /** A new step: its label, and how far its source has read, when it can tell. */
  step(label: string, read?: () => SourceProgress | undefined): void {
    this.label = label;
    this.read = read;
    this.rows = 0;
    this.started = performance.now();
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

  /** What the display shows now. */
  line(now = performance.now()): string {
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? Math.round(this.rows / seconds) : 0;
    const counted = `${this.rows.toLocaleString('en')} rows (${rate.toLocaleString('en')} rows/s)`;
    const read = this.read?.();
    if (read === undefined || read.total <= 0) {
      const spinner = '|/-\\'[Math.floor(seconds * 5) % 4] ?? '';
      return `${spinner} ${this.label}: ${counted}`;
    }
    const share = Math.min(1, read.done / read.total);
    const filled = Math.round(share * BAR_WIDTH);
    const eta = share > 0 && share < 1 ? `, ETA ${clock((seconds * (1 - share)) / share)}` : '';
    return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${Math.floor(share * 100)}% ${this.label}: ${counted}${eta}`;
  }
}

function clock(seconds: number): string {
  const whole = Math.ceil(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
