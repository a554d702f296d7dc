import { z } from 'zod';
import { ConfigError } from '../errors/evsync-error.js';
import { keepRunsSchema, type Retention, retentionAgeSchema } from './retention.js';

const vendorWord = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'must be a lower-case word such as "svc" (letters, digits, underscore)');

/** The platform connection: where, and with which key. */
export const platformEnvSchema = z.object({
  EVSYNC_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://myconf.example.com' })
    .transform((url) => url.replace(/\/+$/, '')),
  EVSYNC_KEY_ID: z
    .string({ error: 'is missing: set the integer key_id of your application key' })
    .regex(/^\d+$/, 'must be the integer key_id of your application key')
    .transform(Number),
  EVSYNC_SIGNING_KEY: z
    .string({ error: 'is missing: set the signing key of your application key' })
    .min(1, 'is empty'),
  EVSYNC_VENDOR: vendorWord.default('svc'),
});

export interface PlatformConfig {
  baseUrl: string;
  keyId: number;
  signingKey: string;
  /** The word that the spec writes as `svc` in param names. */
  vendor: string;
}

/**
 * Reads the platform settings from the environment, reporting every bad or missing value
 * at once, by variable name, without ever echoing the signing key.
 */
export function platformConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const parsed = platformEnvSchema.safeParse(env);
  if (!parsed.success) throw settingsError(parsed.error.issues);
  const data = parsed.data;
  return {
    baseUrl: data.EVSYNC_BASE_URL,
    keyId: data.EVSYNC_KEY_ID,
    signingKey: data.EVSYNC_SIGNING_KEY,
    vendor: data.EVSYNC_VENDOR,
  };
}

const vendorEnvSchema = platformEnvSchema.pick({ EVSYNC_VENDOR: true });

/**
 * `EVSYNC_VENDOR`, checked as a real run checks it (`svc` when unset), for the commands
 * that map rows without calling the platform (`plan`, `run --dry-run`, `validate`): a word
 * the run would refuse must not give a plan that looks fine.
 */
export function vendorFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const parsed = vendorEnvSchema.safeParse(env);
  if (!parsed.success) throw settingsError(parsed.error.issues);
  return parsed.data.EVSYNC_VENDOR;
}

/**
 * `EVSYNC_SIGNING_KEY` when set, for the commands that plan without calling the platform
 * (`plan`, `run --dry-run`): the change hashes of params with a secret are keyed by it.
 */
export function signingKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = env.EVSYNC_SIGNING_KEY;
  return key === undefined || key === '' ? undefined : key;
}

const retentionEnvSchema = z.object({
  EVSYNC_RETENTION_OLDER_THAN: retentionAgeSchema.optional(),
  EVSYNC_RETENTION_KEEP_RUNS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of runs, e.g. 30')
    .transform(Number)
    .pipe(keepRunsSchema)
    .optional(),
});

/**
 * The installation's default retention (docs/ledger.md, "Retention"), the same two rules as
 * a job file's `retention:`: `EVSYNC_RETENTION_OLDER_THAN` (`90d`, `12h`, `2w`) and
 * `EVSYNC_RETENTION_KEEP_RUNS` (a number of runs). Undefined when neither is set; an empty
 * value counts as unset.
 */
export function retentionFromEnv(env: NodeJS.ProcessEnv = process.env): Retention | undefined {
  const set = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);
  const parsed = retentionEnvSchema.safeParse({
    EVSYNC_RETENTION_OLDER_THAN: set(env.EVSYNC_RETENTION_OLDER_THAN),
    EVSYNC_RETENTION_KEEP_RUNS: set(env.EVSYNC_RETENTION_KEEP_RUNS),
  });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`The retention settings are not valid:\n${lines.join('\n')}`);
  }
  const { EVSYNC_RETENTION_OLDER_THAN: olderThan, EVSYNC_RETENTION_KEEP_RUNS: keepRuns } = parsed.data;
  if (olderThan === undefined && keepRuns === undefined) return undefined;
  return {
    ...(olderThan === undefined ? {} : { olderThan: olderThan.replace(/\s+/g, '') }),
    ...(keepRuns === undefined ? {} : { keepRuns }),
  };
}

/** One message for every bad setting, by variable name; values are never echoed. */
function settingsError(issues: readonly z.core.$ZodIssue[]): ConfigError {
  const lines = issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  return new ConfigError(
    `The platform settings are incomplete:\n${lines.join('\n')}\nSet them in the environment or in a .env file.`,
  );
}

export { vendorWord };
