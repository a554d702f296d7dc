import { z } from 'zod';
import { ConfigError } from '../errors/evsync-error.js';
import { platformConfigFromEnv, platformEnvSchema, type PlatformConfig } from './env-config.js';

/**
 * Which conference a job writes to, by the names of the environment variables that hold
 * its base URL, key id and signing key (docs/design.md, "What the ledger knows"): names
 * only, so that a job file never holds a secret. Each name left out falls back to
 * `EVSYNC_BASE_URL`, `EVSYNC_KEY_ID` and `EVSYNC_SIGNING_KEY`.
 */
const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable, such as CONF_A_URL');

export const platformRefSchema = z.strictObject({
  base_url_env: envName.optional(),
  key_id_env: envName.optional(),
  signing_key_env: envName.optional(),
});

export type PlatformRef = z.infer<typeof platformRefSchema>;

/** The variable names a reference reads, the defaults filled in. */
export function platformVariables(ref: PlatformRef = {}): Required<PlatformRef> {
  return {
    base_url_env: ref.base_url_env ?? DEFAULT_VARIABLES.EVSYNC_BASE_URL,
    key_id_env: ref.key_id_env ?? DEFAULT_VARIABLES.EVSYNC_KEY_ID,
    signing_key_env: ref.signing_key_env ?? DEFAULT_VARIABLES.EVSYNC_SIGNING_KEY,
  };
}

/** The job's `platform:` as a run keeps it in its options (names of variables only). */
export function platformRefOfRun(run: { options: Record<string, unknown> }): PlatformRef {
  const ref = run.options.platform;
  if (ref === null || typeof ref !== 'object') return {};
  const names = ref as Record<string, unknown>;
  const pick = (name: keyof PlatformRef): PlatformRef =>
    typeof names[name] === 'string' ? { [name]: names[name] } : {};
  return { ...pick('base_url_env'), ...pick('key_id_env'), ...pick('signing_key_env') };
}

/**
 * A message written in the default variables' terms (`EVSYNC_KEY_ID`, and `evsync ping`, which
 * tests those alone) said in those of a job that names its own (`platform:`): its variable
 * names, and `evsync doctor FILE`, which tests the key that job reads. Unchanged for a job that
 * reads the defaults.
 */
export function inJobTerms(text: string, ref: PlatformRef, jobFile?: string): string {
  const names = platformVariables(ref);
  const own: Record<string, string> = {
    EVSYNC_BASE_URL: names.base_url_env,
    EVSYNC_KEY_ID: names.key_id_env,
    EVSYNC_SIGNING_KEY: names.signing_key_env,
  };
  if (Object.entries(own).every(([name, value]) => name === value)) return text;
  return text
    .replace(/\bEVSYNC_(BASE_URL|KEY_ID|SIGNING_KEY)\b/g, (name) => own[name] ?? name)
    .replace(/`evsync ping`/g, `\`evsync doctor ${jobFile ?? 'JOB'}\``);
}

/** The names `platformConfigFromEnv` reads, by name. */
const DEFAULT_VARIABLES = platformEnvSchema.keyof().enum;

/**
 * The platform settings a reference names, read from `env` and checked as
 * `platformConfigFromEnv` checks the defaults; a message names the variables the job
 * gave, never their values. The base URL comes back normalised ({@link conferenceUrl}).
 */
export function platformConfigFor(
  ref: PlatformRef = {},
  env: NodeJS.ProcessEnv = process.env,
): PlatformConfig {
  const names = platformVariables(ref);
  const renamed: NodeJS.ProcessEnv = {
    EVSYNC_VENDOR: env.EVSYNC_VENDOR,
    EVSYNC_BASE_URL: env[names.base_url_env],
    EVSYNC_KEY_ID: env[names.key_id_env],
    EVSYNC_SIGNING_KEY: env[names.signing_key_env],
  };
  try {
    const config = platformConfigFromEnv(renamed);
    return { ...config, baseUrl: conferenceUrl(config.baseUrl) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const message = error.message
      .replace(/\bEVSYNC_BASE_URL\b/g, names.base_url_env)
      .replace(/\bEVSYNC_KEY_ID\b/g, names.key_id_env)
      .replace(/\bEVSYNC_SIGNING_KEY\b/g, names.signing_key_env);
    throw new ConfigError(message, { code: error.code });
  }
}

/**
 * A conference's identity: its base URL normalised to scheme, host (lower case), port
 * (only when not the scheme's default) and path, without a trailing slash, query or
 * fragment. The key id is not part of it: keys rotate, the conference stays.
 */
export function conferenceUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * Whether what a person typed names the conference of `baseUrl` (`release-hold
 * --conference`): its base URL however written (`HTTP://127.0.0.1:47811/`, as in
 * EVSYNC_BASE_URL), or its host and path as `evsync status` shows them (`127.0.0.1:47811`,
 * `MyConf.example.com/api`), which may be of either scheme. Both sides are compared as
 * {@link conferenceUrl} normalises them: one identity, however it is spelt.
 */
export function namesConference(named: string, baseUrl: string): boolean {
  const text = named.trim();
  const spellings = /^[a-z][a-z\d+.-]*:\/\//i.test(text) ? [text] : [`https://${text}`, `http://${text}`];
  const known = normalisedOrUndefined(baseUrl);
  return known !== undefined && spellings.some((spelling) => normalisedOrUndefined(spelling) === known);
}

function normalisedOrUndefined(baseUrl: string): string | undefined {
  try {
    return conferenceUrl(baseUrl);
  } catch {
    return undefined;
  }
}

/**
 * The normalised base URL a reference names, without needing the key: `plan` and
 * `run --dry-run` compare with what was synced to this conference and send nothing.
 */
export function conferenceUrlFor(ref: PlatformRef = {}, env: NodeJS.ProcessEnv = process.env): string {
  const name = platformVariables(ref).base_url_env;
  const parsed = platformEnvSchema.shape.EVSYNC_BASE_URL.safeParse(env[name]);
  if (!parsed.success) {
    const problem =
      env[name] === undefined || env[name] === '' ? 'is missing' : parsed.error.issues[0]?.message;
    throw new ConfigError(
      `The platform settings are incomplete:\n  ${name}: ${problem ?? 'is not valid'}\n` +
        "A plan compares the sources with what was synced to one conference: set the conference's base URL " +
        'in the environment or in a .env file.',
    );
  }
  return conferenceUrl(parsed.data);
}
