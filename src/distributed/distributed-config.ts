import { z } from 'zod';
import { ConfigError } from '../errors/evsync-error.js';
import { redactUrl } from '../log/redaction.js';

/** Where distributed mode's queue lives (docs/distributed.md, "Settings"). */
export interface DistributedConfig {
  redisUrl: string;
  /** BullMQ's key prefix: installations and test runs sharing one Redis keep apart by it. */
  prefix: string;
  /** `REDIS_URL` without its password, for messages and `evsync status`. */
  description: string;
}

const schema = z.object({
  REDIS_URL: z.url({
    protocol: /^rediss?$/,
    error: 'must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379',
  }),
  EVSYNC_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, "_", "-" or "." (e.g. evsync-staging)')
    .default('evsync'),
  DATABASE_URL: z
    .string({
      error:
        'is missing: distributed mode (REDIS_URL is set) keeps its ledger in a PostgreSQL that every worker reaches. Set DATABASE_URL, or unset REDIS_URL to run in one process with the embedded ledger',
    })
    .min(1, 'is empty: distributed mode needs a PostgreSQL ledger every worker reaches'),
});

/**
 * Distributed mode's settings when `REDIS_URL` is set, else undefined (one process, the
 * inline queue). Its workers share the ledger, so an embedded ledger is refused.
 */
export function distributedConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): DistributedConfig | undefined {
  if (env.REDIS_URL === undefined || env.REDIS_URL === '') return undefined;
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Distributed mode's settings are incomplete:\n${lines.join('\n')}`);
  }
  return {
    redisUrl: parsed.data.REDIS_URL,
    prefix: parsed.data.EVSYNC_QUEUE_PREFIX,
    description: redactUrl(parsed.data.REDIS_URL),
  };
}
