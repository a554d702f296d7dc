import type { ResultAction } from '../../model/result-records.js';
import type { PhaseName } from '../phases/sync-phases.js';
import type { ProgressSink } from './progress-sink.js';

const BAR_WIDTH = 24;
const BAR_LABELS: Record<PhaseName, string> = {
  users: 'users',
  events: 'events',
  links: 'links',
  unlinks: 'link deletes',
  rsvps: 'RSVPs',
  removals: 'deletes',
};
const REDRAW_MS = 100;

/** A bar per phase on a terminal (stderr): rows done, rate, ETA, and failures so far. */
export class TtyProgress implements ProgressSink {
  private phase: PhaseName | undefined;
  private total = 0;
  private done = 0;
  private failed = 0;
  private started = 0;
  private growing = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  phaseGrew(_phase: PhaseName, total: number, growing: boolean): void {
    this.total = total;
    this.growing = growing;
  }

  phaseStarted(phase: PhaseName, total: number, growing = false): void {
    this.phase = phase;
    this.total = total;
    this.growing = growing;
    this.done = 0;
    this.failed = 0;
    this.started = performance.now();
    this.timer ??= setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
    this.draw();
  }

  advanced(_phase: PhaseName, action: ResultAction): void {
    this.done += 1;
    if (action === 'failed') this.failed += 1;
  }

  phaseEnded(): void {
    this.growing = false;
    this.draw();
    this.stream.write('\n');
    this.phase = undefined;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private draw(): void {
    if (!this.phase) return;
    const seconds = (performance.now() - this.started) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const share = this.total === 0 ? 1 : this.done / this.total;
    const filled = Math.round(share * BAR_WIDTH);
    // A share of what was read so far would look nearly done all along: no fill until the end is known.
    const bar = this.growing
      ? 'reading the sources'.padEnd(BAR_WIDTH)
      : `${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}`;
    // While the sources are still being read, the total is only what was read so far.
    const eta = this.growing
      ? 'when the sources are read'
      : rate > 0
        ? formatSeconds((this.total - this.done) / rate)
        : '–';
    const failures = this.failed > 0 ? `  ${this.failed} failed` : '';
    const line =
      `${BAR_LABELS[this.phase].padEnd(12)} [${bar}] ` +
      `${this.done}/${this.total}${this.growing ? '+' : ''}  ${rate.toFixed(0)}/s  ETA ${eta}${failures}`;
    this.stream.write(`\r${line.slice(0, (this.stream.columns || 100) - 1)}\u001b[K`);
  }
}

function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–';
  const s = Math.max(0, Math.round(seconds));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}
