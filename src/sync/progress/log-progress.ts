import type { ResultAction } from '../../model/result-records.js';
import type { Logger } from '../../log/logger.js';
import type { PhaseName } from '../phases/sync-phases.js';
import type { ProgressSink } from './progress-sink.js';

/** Off a terminal: one JSON log line per phase start and end, and one every `everyMs` in between. */
export class LogProgress implements ProgressSink {
  private total = 0;
  private done = 0;
  private failed = 0;
  private started = 0;
  private lastLog = 0;
  private growing = false;

  constructor(
    private readonly logger: Logger,
    private readonly everyMs = 5_000,
  ) {}

  phaseGrew(_phase: PhaseName, total: number, growing: boolean): void {
    this.total = total;
    this.growing = growing;
  }

  phaseStarted(phase: PhaseName, total: number, growing = false): void {
    this.total = total;
    this.growing = growing;
    this.done = 0;
    this.failed = 0;
    this.started = this.lastLog = performance.now();
    this.logger.info({ phase, total }, 'phase started');
  }

  advanced(phase: PhaseName, action: ResultAction): void {
    this.done += 1;
    if (action === 'failed') this.failed += 1;
    const now = performance.now();
    if (now - this.lastLog >= this.everyMs) {
      this.lastLog = now;
      this.logger.info({ phase, ...this.figures(now) }, 'progress');
    }
  }

  phaseEnded(phase: PhaseName): void {
    this.growing = false;
    this.logger.info({ phase, ...this.figures(performance.now()) }, 'phase done');
  }

  close(): void {}

  private figures(now: number): Record<string, number | boolean> {
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    return {
      done: this.done,
      total: this.total,
      failed: this.failed,
      perSecond: Math.round(rate),
      // -1: unknown, as while the sources are still being read (`total` is what was read so far).
      etaSeconds: rate > 0 && !this.growing ? Math.round((this.total - this.done) / rate) : -1,
      ...(this.growing ? { reading: true } : {}),
    };
  }
}
