import type { ResultAction } from '../../model/result-records.js';
import type { PhaseName } from '../phases/sync-phases.js';

/** Where a run reports its progress: a bar on a TTY, JSON log lines otherwise, nothing in tests. */
export interface ProgressSink {
  phaseStarted(phase: PhaseName, total: number): void;
  /** The phase turned out bigger: a streamed plan is still reading its sources. */
  phaseGrew?(phase: PhaseName, total: number): void;
  /** One intent of the phase ended with this action. */
  advanced(phase: PhaseName, action: ResultAction): void;
  phaseEnded(phase: PhaseName): void;
  /** Stops timers and clears the bar. */
  close(): void;
}

export const silentProgress: ProgressSink = {
  phaseStarted: () => {},
  advanced: () => {},
  phaseEnded: () => {},
  close: () => {},
};
