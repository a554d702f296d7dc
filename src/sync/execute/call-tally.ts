import type { Ledger } from '../../ledger/ledger.js';
import type { Logger } from '../../log/logger.js';
import { onPlatformCall } from '../../metrics/process-metrics.js';

/** How often counted seconds go to the ledger. */
const FLUSH_MS = 2000;

/**
 * Counts this process's platform calls per run, second and outcome, and its rate-limit
 * pauses, and adds them to the ledger every two seconds (`Ledger.recordCallSeconds`): what
 * the run page charts (docs/dashboard.md). With `defaultRunId` (a run sent in this process)
 * it counts that run's calls and those made for no known run; without (a worker), every
 * call made for a run.
 */
export class CallTally {
  private counts = new Map<string, number>();
  private readonly unsubscribe: () => void;
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ledger: Pick<Ledger, 'recordCallSeconds'>,
    private readonly options: { defaultRunId?: string; logger?: Logger | undefined } = {},
  ) {
    this.unsubscribe = onPlatformCall((call) => {
      const runId = call.runId ?? this.options.defaultRunId;
      // A run's tally counts its own calls: another run's in this process has its own tally.
      const ours = this.options.defaultRunId === undefined || runId === this.options.defaultRunId;
      if (runId !== undefined && ours) this.add(runId, call.at, call.outcome);
    });
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Counts one mark (`stop`, `resume`) or call of `runId` now. */
  add(runId: string, at: number, outcome: string): void {
    const key = `${runId}\u0000${Math.floor(at / 1000)}\u0000${outcome}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Writes what was counted since the last flush; a failure is logged, and those counts dropped. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.counts.size === 0) return;
      const counted = this.counts;
      this.counts = new Map();
      const rows = [...counted].map(([key, calls]) => {
        const [runId, second, outcome] = key.split('\u0000') as [string, string, string];
        return { runId, at: new Date(Number(second) * 1000), outcome, calls };
      });
      await this.ledger
        .recordCallSeconds(rows)
        .catch((error: unknown) =>
          this.options.logger?.debug(
            { error: error instanceof Error ? error.message : String(error) },
            'calls per second not recorded',
          ),
        );
    });
    return this.flushing;
  }

  /** Stops counting and writes the rest. */
  async close(): Promise<void> {
    this.unsubscribe();
    clearInterval(this.timer);
    await this.flush();
  }
}
