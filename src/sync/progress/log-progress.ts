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

  phaseGrew(phase: PhaseName, total: number, growing: boolean): void {
    this.total = total;
    if (this.growing && !growing) this.logger.info({ phase, total }, 'phase total known');
    this.growing = growing;
  }

  /**
   * A phase whose sources are still being read has no total yet: the rows read so far are
   * not one (a first line said 100 of a phase of 297), so none is said until it is known.
   */
  phaseStarted(phase: PhaseName, total: number, growing = false): void {
    this.total = total;
    this.growing = growing;
    this.done = 0;
    this.failed = 0;
    this.started = this.lastLog = performance.now();
    if (growing)
      this.logger.info(
        { phase, reading: true },
        'phase started; its total is known once its sources are read',
      );
    else this.logger.info({ phase, total }, 'phase started');
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
