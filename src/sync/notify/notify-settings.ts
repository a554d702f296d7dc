import { z } from 'zod';

/** Seconds, minutes, hours and days: what a grace or a backoff is written in (`30s`, `15m`). */
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

// Settings are kept as written (run options, `job_notices`) and read back through this
// schema, so nothing here transforms a value into another form.
const durationSchema = z
  .string()
  .trim()
  .regex(/^\d{1,6}\s*[smhd]$/, 'write a whole number and a unit: 30s, 15m, 2h or 1d');

/** `15m` → milliseconds. */
export function durationMs(text: string): number {
  const match = /^(\d+)\s*([smhd])$/.exec(text.trim());
  if (match === null) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** All attempts of one delivery, waits included, end within this (`retry.deadline`). */
const DEFAULT_DEADLINE = '20s';

/** A count of rows, or a percentage written `"5%"`. */
const rowThreshold = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .regex(/^\d+(\.\d+)?%$/, 'write a number of rows, or a percentage such as "5%"')
    .refine((text) => Number(text.slice(0, -1)) <= 100, 'a percentage is at most 100%'),
]);

/** A threshold as written, as a share or a count. */
export function thresholdOf(written: number | string): { percent: number } | { count: number } {
  return typeof written === 'number' ? { count: written } : { percent: Number(written.slice(0, -1)) };
}

/** The name of an environment variable: where a secret (a URL with a token, a password) is read from. */
const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'write the name of an environment variable, such as OPS_WEBHOOK_URL');

const webhookSchema = z.strictObject({
  /** The variable holding the URL: incoming-webhook URLs carry their token in the path. */
  url_env: envName,
  /** The variable holding the key of the `X-Evsync-Signature` HMAC-SHA256 header. */
  secret_env: envName.optional(),
  /** `chat`: `{"text": …}`, as Slack and Mattermost incoming webhooks take it. @defaultValue `json` */
  format: z.enum(['json', 'chat']).default('json'),
});

const emailSchema = z.strictObject({
  /** The variable holding the SMTP URL: `smtp://user:pass@host:587` (STARTTLS) or `smtps://…:465` (TLS). */
  smtp_url_env: envName,
  from: z.email('write the sender as an e-mail address'),
  to: z.union([z.email(), z.array(z.email()).min(1)]),
  /**
   * Log in to an `smtp://` server that offers no STARTTLS, the password unencrypted: only on a
   * network you trust (docs/notifications.md, "E-mail and TLS"). Without it such a server gets
   * no login and no message. @defaultValue `false`
   */
  allow_login_without_tls: z.boolean().default(false),
});

const channelSchema = z.union([
  z.strictObject({ webhook: webhookSchema }),
  z.strictObject({ email: emailSchema }),
]);

const whenSchema = z.strictObject({
  /** The run ended `failed` or `aborted`, or was cut off (its process gone). @defaultValue true */
  run_failed: z.boolean().default(true),
  /** Failed rows at or above a count, or a percentage of the run's rows. @defaultValue off */
  failed_rows: rowThreshold.optional(),
  /** The sources' rows dropped by at least this percentage against the job's last completed run. @defaultValue off */
  rows_dropped: z
    .string()
    .regex(/^\d+(\.\d+)?%$/, 'write a percentage such as "20%"')
    .refine((text) => Number(text.slice(0, -1)) <= 100, 'a percentage is at most 100%')
    .optional(),
  /**
   * A scheduled job with no completed run within its period plus this grace (a schedule that
   * is missed, or whose workers are gone). `true`: a grace of 15 minutes. @defaultValue off
   */
  missed_schedule: z.union([z.boolean(), z.strictObject({ grace: durationSchema })]).optional(),
  /** One message when every rule holds no longer. @defaultValue true */
  back_to_normal: z.boolean().default(true),
});

/** `notify:` of a job file (docs/notifications.md): its channels and its rules. */
export const notifySchema = z.strictObject({
  channels: z.array(channelSchema).min(1, 'name at least one channel: a webhook or an email'),
  when: whenSchema.default({ run_failed: true, back_to_normal: true }),
  /**
   * How a delivery is tried again: attempts in all, the first wait (doubled each time), and
   * the time all attempts of one delivery may take together: a receiver that never answers
   * costs the process that sends at most this long (docs/notifications.md, "When a message
   * cannot be delivered").
   */
  retry: z
    .strictObject({
      attempts: z.number().int().min(1).max(10).default(4),
      backoff: durationSchema.default('1s'),
      /** @defaultValue `20s` */
      deadline: durationSchema.default(DEFAULT_DEADLINE),
    })
    .default({ attempts: 4, backoff: '1s', deadline: DEFAULT_DEADLINE }),
});

export type NotifySettings = z.infer<typeof notifySchema>;
export type NotifyChannel = NotifySettings['channels'][number];
export type NotifyRules = NotifySettings['when'];

/** The grace of `missed_schedule` in milliseconds, or undefined when the rule is off. */
export function missedScheduleGraceMs(rules: NotifyRules): number | undefined {
  const rule = rules.missed_schedule;
  if (rule === undefined || rule === false) return undefined;
  return rule === true ? 15 * 60_000 : durationMs(rule.grace);
}

/**
 * Settings as the ledger keeps them (`job_notices.settings`) and runs carry them: the job
 * file's form, read back through the schema. Undefined when absent or no longer valid.
 */
export function notifySettingsOf(written: unknown): NotifySettings | undefined {
  if (written === undefined || written === null) return undefined;
  const parsed = notifySchema.safeParse(written);
  return parsed.success ? parsed.data : undefined;
}
