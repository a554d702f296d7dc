import type { RunRecord, RunPruning } from '../../model/run-record.js';
import { utcMinute } from '../../time/utc-minute.js';

/** `2026-11-22 01:45 UTC`. */
export function pruneDay(date: Date): string {
  return utcMinute(date);
}

/**
 * What a pruned run's page, report and listing say about it, in one sentence: when, by which
 * retention, and that its counts are kept.
 */
export function prunedNote(pruned: RunPruning): string {
  if (pruned.prunedAt === null)
    return (
      `A prune of this run's rows started on ${pruneDay(pruned.startedAt)} and was cut off: ` +
      '`evsync prune` finishes it. Counts are kept.'
    );
  const kept = pruned.kept.intent_results ?? 0;
  return (
    `Rows of this run were pruned on ${pruneDay(pruned.prunedAt)} (retention: ${pruned.rule}); counts are kept.` +
    (kept > 0
      ? ` The ${kept} result${kept === 1 ? '' : 's'} still shown ${kept === 1 ? 'is' : 'are'} kept because the synced state points at ${kept === 1 ? 'it' : 'them'}.`
      : '')
  );
}

/** The marker a run list shows beside a pruned run's status. */
export function prunedMarker(run: Pick<RunRecord, 'pruned'>): string | undefined {
  if (run.pruned === undefined) return undefined;
  return run.pruned.prunedAt === null ? 'pruning cut off' : 'pruned';
}
