import { z } from 'zod';

/**
 * Minutes, hours, days and weeks: what an age is written in (`30m`, `12h`, `90d`, `2w`), by
 * `prune --older-than` and `runs --since` alike (issue #40: one took `30m`, the other not).
 */
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;
const AGE = /^(\d{1,6})\s*([mhdw])$/;

/**
 * An age such as `90d`, `12h`, `30m` or `2w` (a whole number and one unit: m minutes, h hours,
 * d days, w weeks). `0d` is allowed: every finished run is old enough.
 */
export const retentionAgeSchema = z
  .string()
  .trim()
  .regex(AGE, 'write a whole number and a unit: 30m (minutes), 12h (hours), 90d (days) or 2w (weeks)');

/** How many runs of a job to keep, newest first. */
export const keepRunsSchema = z.number().int().min(1, 'keep at least 1 run').max(1_000_000);

/**
 * How long a job's per-row data is kept (docs/ledger.md, "Retention"). Given both, a run is
 * pruned only when it is older than `older_than` AND not among the job's newest `keep_runs`.
 */
export const retentionSchema = z
  .strictObject({
    /** Runs that finished longer ago than this. */
    older_than: retentionAgeSchema.optional(),
    /** Runs beyond the job's newest N. */
    keep_runs: keepRunsSchema.optional(),
  })
  .refine((r) => r.older_than !== undefined || r.keep_runs !== undefined, {
    message: 'say what to keep: older_than (e.g. 90d), keep_runs (e.g. 30), or both',
  });

/** A retention as written (job file, environment, command line); both rules when both are given. */
export interface Retention {
  olderThan?: string;
  keepRuns?: number;
}

/** `90d` → milliseconds. */
export function retentionAgeMs(age: string): number {
  const ms = ageMs(age);
  if (ms === undefined) throw new Error(`not an age: ${age}`);
  return ms;
}

/** `30m`, `12h`, `7d`, `2w` → milliseconds; undefined when the text is no age. */
export function ageMs(text: string): number | undefined {
  const match = AGE.exec(text.trim());
  return match === null ? undefined : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** The job file's form (`older_than`, `keep_runs`) as a `Retention`. */
export function retentionOf(written: z.infer<typeof retentionSchema>): Retention {
  return {
    ...(written.older_than === undefined ? {} : { olderThan: written.older_than.replace(/\s+/g, '') }),
    ...(written.keep_runs === undefined ? {} : { keepRuns: written.keep_runs }),
  };
}

/** In words, for output and the run page: `older than 90d, beyond the newest 30 runs`. */
export function describeRetention(retention: Retention): string {
  const parts = [
    retention.olderThan === undefined ? undefined : `older than ${retention.olderThan}`,
    retention.keepRuns === undefined
      ? undefined
      : `beyond the newest ${retention.keepRuns} run${retention.keepRuns === 1 ? '' : 's'}`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? 'none' : parts.join(', ');
}
