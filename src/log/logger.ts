import { pino, type Logger, type LoggerOptions } from 'pino';
import { LOG_REDACT_PATHS, REDACTED, isSecretName, redactUrl } from './redaction.js';
import { humanStderr, wantsHumanLogs } from './human-lines.js';

export type { Logger } from 'pino';

/**
 * The one root logger, writing to standard error: short human lines on a terminal, JSON
 * otherwise (see `wantsHumanLogs`). Children bind `{runId, intent, row}`.
 * Tests stay silent unless LOG_LEVEL is set. Secret paths are censored, and any object key
 * that names a secret (a vendor-specific password param, say) is censored by the serializer
 * below.
 */
export function createLogger(options: LoggerOptions = {}, destination?: pino.DestinationStream): Logger {
  const level = process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');
  const base: LoggerOptions = {
    level,
    redact: {
      paths: LOG_REDACT_PATHS,
      censor: (value) => (typeof value === 'string' ? censorString(value) : REDACTED),
    },
    formatters: { log: (object) => scrubSecretKeys(object) as Record<string, unknown> },
    ...options,
  };
  // Standard error by default: standard output carries what commands print for people and
  // programs (`plan --json > plan.json`, the run summary), which log lines would corrupt.
  return pino(base, destination ?? (wantsHumanLogs() ? humanStderr : pino.destination(2)));
}

/** URLs keep their host for debugging; only their credentials are hidden. */
function censorString(value: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? redactUrl(value) : REDACTED;
}

function scrubSecretKeys(value: unknown, depth = 0): unknown {
  if (depth > 6 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => scrubSecretKeys(item, depth + 1));
  if (value instanceof Error) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    copy[key] = isSecretName(key) && typeof child === 'string' ? REDACTED : scrubSecretKeys(child, depth + 1);
  }
  return copy;
}

let root: Logger | undefined;

/** The process-wide logger, created on first use. */
export function rootLogger(): Logger {
  root ??= createLogger();
  return root;
}
