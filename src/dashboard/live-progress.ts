import type { ResultAction } from '../model/result-records.js';
import type { PhaseName } from '../sync/phases/sync-phases.js';
import type { ProgressSink } from '../sync/progress/progress-sink.js';

export interface PhaseProgress {
  phase: PhaseName;
  total: number;
  done: number;
  failed: number;
  ended: boolean;
}

/**
 * The engine's progress of a run the dashboard started, phase by phase, as the live page
 * shows it. Runs started elsewhere have no such feed: their page follows the ledger's
 * counts instead (see `run-events.ts`).
 */
export class LiveProgress implements ProgressSink {
  private readonly phases = new Map<PhaseName, PhaseProgress>();

  phaseStarted(phase: PhaseName, total: number): void {
    this.phases.set(phase, { phase, total, done: 0, failed: 0, ended: false });
  }

  /** A streamed plan is still reading: the phase's total grows. */
  phaseGrew(phase: PhaseName, total: number): void {
    const progress = this.phases.get(phase);
    if (progress) progress.total = total;
  }

  advanced(phase: PhaseName, action: ResultAction): void {
    const progress = this.phases.get(phase);
    if (!progress) return;
    progress.done += 1;
    if (action === 'failed') progress.failed += 1;
  }

  phaseEnded(phase: PhaseName): void {
    const progress = this.phases.get(phase);
    if (progress) progress.ended = true;
  }

  close(): void {}

  snapshot(): PhaseProgress[] {
    return [...this.phases.values()].map((phase) => ({ ...phase }));
  }
}

/** Progress feeds of the runs this dashboard started, by run id; kept for an hour after. */
export class LiveRuns {
  private readonly feeds = new Map<string, { progress: LiveProgress; since: number }>();

  follow(runId: string, progress: LiveProgress): void {
    const hourAgo = Date.now() - 60 * 60 * 1000;
    for (const [id, feed] of this.feeds) if (feed.since < hourAgo) this.feeds.delete(id);
    this.feeds.set(runId, { progress, since: Date.now() });
  }

  phasesOf(runId: string): PhaseProgress[] | undefined {
    return this.feeds.get(runId)?.progress.snapshot();
  }
}
