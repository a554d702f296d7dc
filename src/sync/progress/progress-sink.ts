import type { ResultAction } from '../../model/result-records.js';
import type { PhaseName } from '../phases/sync-phases.js';

/** Where a run reports its progress: a bar on a TTY, JSON log lines otherwise, nothing in tests. */
export interface ProgressSink {
  /** `growing` while a streamed plan is still reading the phase: its total is a floor, not an end. */
  phaseStarted(phase: PhaseName, total: number, growing?: boolean): void;
  /** The phase turned out bigger; `growing` until its sources are read to the end. */
  phaseGrew?(phase: PhaseName, total: number, growing: boolean): void;
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
