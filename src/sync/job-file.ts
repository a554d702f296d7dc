import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { platformRefSchema } from '../config/conference.js';
import { percentOrCount } from '../config/percent-or-count.js';
import { retentionSchema } from '../config/retention.js';
import { loadYamlFile } from '../config/yaml-file.js';
import { sourceConfigSchema } from '../sources/source-config.js';
import type { LoadMappingOptions } from '../mapping/load-mapping.js';
import { ON_SHARED_EMAIL } from '../mapping/mapped-item.js';
import { isTimeZone } from '../time/time-zone.js';
import { notifySchema } from './notify/notify-settings.js';

/** `10%` of known objects, or an absolute count. */
const deleteThreshold = percentOrCount('write a percentage such as "10%", or a whole number of objects');

const stepName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'use letters, digits, ".", "_" and "-" (at most 64)');

/** `80%` of the step's rows in the last completed run, or a count of rows. */
const minRows = percentOrCount('write a number of rows, or a percentage of the last run’s such as "80%"');
export type MinRows = z.infer<typeof minRows>;

export const jobStepSchema = z.strictObject({
  /** What `merge:` and messages call the step; `step N` when not given. */
  name: stepName.optional(),
  /** A shipped mapping name (`users`) or a path to a mapping file, relative to the job file. */
  mapping: z.string().min(1),
  source: sourceConfigSchema,
  /** Schedules: `replace` sends PUT /event/schedule; `rsvp` adds and removes single events. */
  schedule_mode: z.enum(['replace', 'rsvp']).optional(),
  /**
   * Fewer rows than this in the step's source stop the run before anything is sent (exit 3)
   * unless `--force`: a count, or a percentage of the step's rows in the job's last
   * completed run (docs/sync-engine.md, "Empty sources"). @defaultValue no minimum
   */
  min_rows: minRows.optional(),
  /**
   * `{ columns: all_unmapped }`: every source column the mapping does not read (a
   * registration's own questions) goes into each user's custom_data, by its header
   * (docs/mapping.md, "Columns no mapping reads"). @defaultValue they are only named by
   * validate and plan
   */
  custom_data: z.strictObject({ columns: z.literal('all_unmapped') }).optional(),
  /**
   * Over the mapping's `on_shared_email`: what to do with rows that give an earlier row's
   * e-mail to a person of another name (ticket holders of one order). @defaultValue the mapping's
   */
  on_shared_email: z.enum(ON_SHARED_EMAIL).optional(),
});

/** What a step says of how its mapping is loaded (see `LoadMappingOptions`). */
export function stepMappingOptions(
  step: Pick<JobStep, 'custom_data' | 'on_shared_email'>,
): Pick<LoadMappingOptions, 'customData' | 'onSharedEmail'> {
  return { customData: step.custom_data, onSharedEmail: step.on_shared_email };
}

/**
 * How rows of several steps that describe one person (the same normalised e-mail) become
 * one user (docs/sync-engine.md, "One person, many sources"). `false` keeps each step's
 * users apart: rows of two steps with one e-mail are then one platform user, the later row
 * updating the earlier, and a client_id in two steps is the first step's
 * (`collect/users-apart.ts`).
 */
const mergeSchema = z.strictObject({
  users: z
    .union([
      z.literal(false),
      z.strictObject({
        /** Step names, first wins: the first non-empty value of a field in this order. */
        precedence: z.array(stepName).min(1).optional(),
        /**
         * Per field (a param name such as `user[membership]`, or `membership`; or an object
         * taken whole: `employee`, `addresses`, `phones`, `preferences`): its own order.
         */
        fields: z.record(z.string().min(1), z.array(stepName).min(1)).optional(),
      }),
    ])
    .optional(),
});

export const jobFileSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'use letters, digits, ".", "_" and "-" (at most 64)'),
    description: z.string().optional(),
    /**
     * The conference the job writes to, by the names of the environment variables holding its
     * base URL, key id and signing key; each falls back to `EVSYNC_*` (docs/design.md).
     */
    platform: platformRefSchema.optional(),
    /** `mirror` also deletes what the source no longer has, guarded by `delete_threshold`. */
    mode: z.enum(['upsert', 'mirror']).default('upsert'),
    rate: z
      .strictObject({
        per_second: z.number().positive().max(10_000).default(10),
        concurrency: z.number().int().min(1).max(256).default(4),
      })
      .default({ per_second: 10, concurrency: 4 }),
    delete_threshold: deleteThreshold.default({ percent: 10 }),
    /**
     * Cron pattern of the scheduled (nightly) run, with its IANA time zone (`tz` or
     * `timezone`); `evsync schedule JOB` registers it (docs/distributed.md, "Schedules").
     */
    schedule: z
      .strictObject({
        cron: z.string().min(9, 'write a cron pattern such as "0 2 * * *" (at 02:00 every day)'),
        tz: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').optional(),
        timezone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').optional(),
        /** A six-field pattern's first field is seconds: taken only when the job says so. */
        seconds: z.boolean().optional(),
      })
      .refine(({ cron, seconds }) => seconds === true || cron.trim().split(/\s+/).length !== 6, {
        path: ['cron'],
        message:
          'has six fields: the first is seconds, so it fires up to every second. Write five fields ' +
          '("0 2 * * *": minute, hour, day, month, weekday), or add `seconds: true` to schedule: if you mean it',
      })
      .transform(({ cron, tz, timezone }) => ({ cron, timezone: tz ?? timezone ?? 'UTC' }))
      .optional(),
    /**
     * How long the per-row data of the job's runs is kept: `evsync prune` without flags, and
     * the prune after each scheduled run, apply it (docs/ledger.md, "Retention").
     * @defaultValue `EVSYNC_RETENTION_OLDER_THAN` / `EVSYNC_RETENTION_KEEP_RUNS`, else kept for ever
     */
    retention: retentionSchema.optional(),
    /** Who is told when a run goes wrong, and when the job is back to normal (docs/notifications.md). */
    notify: notifySchema.optional(),
    steps: z.array(jobStepSchema).min(1, 'a job needs at least one step'),
    merge: mergeSchema.optional(),
  })
  .superRefine((job, context) => {
    const names = new Set<string>();
    job.steps.forEach((step, index) => {
      if (step.name === undefined) return;
      if (names.has(step.name))
        context.addIssue({
          code: 'custom',
          path: ['steps', index, 'name'],
          message: `"${step.name}" names two steps`,
        });
      names.add(step.name);
    });
    const users = job.merge?.users;
    if (!users) return;
    const check = (list: readonly string[], path: (string | number)[]): void =>
      list.forEach((name, index) => {
        if (!names.has(name))
          context.addIssue({
            code: 'custom',
            path: [...path, index],
            message: `"${name}" is no step's name: give the step \`name: ${name}\``,
          });
      });
    check(users.precedence ?? [], ['merge', 'users', 'precedence']);
    for (const [field, list] of Object.entries(users.fields ?? {}))
      check(list, ['merge', 'users', 'fields', field]);
  });

export type JobFile = z.infer<typeof jobFileSchema>;
export type JobStep = z.infer<typeof jobStepSchema>;
export type MergeSettings = NonNullable<JobFile['merge']>;

/** What messages call a step: its `name`, or `step N` (from 1). */
export function stepLabel(step: Pick<JobStep, 'name'>, index: number): string {
  return step.name ?? `step ${index + 1}`;
}
export type DeleteThreshold = JobFile['delete_threshold'];

export interface LoadedJob extends JobFile {
  /** Absolute path of the job file; relative paths inside it resolve against its folder. */
  file: string;
  baseDir: string;
}

export function loadJobFile(file: string): LoadedJob {
  const absolute = resolve(file);
  const job = loadYamlFile(absolute, jobFileSchema, 'job file');
  return { ...job, file: absolute, baseDir: dirname(absolute) };
}

/** Resolves a path written in a job file against the job file's folder. */
export function resolveJobPath(job: Pick<LoadedJob, 'baseDir'>, path: string): string {
  return isAbsolute(path) ? path : resolve(job.baseDir, path);
}

/** How many deletes the threshold allows out of `known` objects. */
export function allowedDeletes(threshold: DeleteThreshold, known: number): number {
  return 'percent' in threshold ? Math.floor((known * threshold.percent) / 100) : threshold.count;
}
