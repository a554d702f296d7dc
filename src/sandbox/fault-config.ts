import { z } from 'zod';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';

/** How often a fault fires: a fraction of matching requests, or exactly the next N of them. */
export const faultRateSchema = z.union([
  z.object({ fraction: z.number().min(0).max(1) }),
  z.object({ next: z.number().int().min(0) }),
]);
export type FaultRate = z.infer<typeof faultRateSchema>;

/**
 * Faults the sandbox injects into signed API calls (never into `/_sandbox/`). The
 * commit-then-fail pair applies to writes that succeeded: the change is kept and the
 * answer is lost, the case that makes a naive connector create duplicates.
 */
export const faultConfigSchema = z.strictObject({
  /** Added before each answer: fixed when min = max, else uniform in [min, max]. */
  latency: z
    .strictObject({ minMs: z.number().min(0).max(60_000), maxMs: z.number().min(0).max(60_000) })
    .refine((range) => range.maxMs >= range.minMs, 'latency maxMs must be at least minMs')
    .optional(),
  error500: faultRateSchema.optional(),
  error503: faultRateSchema.optional(),
  /** The socket is destroyed without an answer, before the request is handled. */
  reset: faultRateSchema.optional(),
  /** The write is applied, then the socket is destroyed without an answer. */
  commitDrop: faultRateSchema.optional(),
  /** The write is applied, then 500 is answered. */
  commit500: faultRateSchema.optional(),
  /** Seed of the fault dice, for a reproducible run. */
  seed: z.number().int().optional(),
});
export type FaultConfig = z.infer<typeof faultConfigSchema>;

const RATE_NAMES: Record<string, keyof FaultConfig> = {
  '500': 'error500',
  error500: 'error500',
  '503': 'error503',
  error503: 'error503',
  reset: 'reset',
  'commit-drop': 'commitDrop',
  'commit-500': 'commit500',
};

const SPEC_NAMES = [
  ['500', 'error500'],
  ['503', 'error503'],
  ['reset', 'reset'],
  ['commit-drop', 'commitDrop'],
  ['commit-500', 'commit500'],
] as const;

/**
 * Parses the `--faults` text: comma- or semicolon-separated `name=value` items.
 * `latency=50` or `latency=20-200` (ms); `500`, `503`, `reset`, `commit-drop`, `commit-500`
 * take a fraction (`0.1`) or `Nx` for exactly the next N requests; `seed=7`.
 * Example: `latency=5-20,503=0.05,commit-drop=2x`. An empty text means no faults.
 */
export function parseFaultSpec(spec: string): FaultConfig {
  const config: Record<string, unknown> = {};
  for (const item of spec.split(/[,;]/).map((part) => part.trim())) {
    if (item === '' || item === 'none') continue;
    const [name = '', value = ''] = item.split('=', 2).map((part) => part.trim());
    if (name === 'latency') {
      const match = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?(?:ms)?$/.exec(value);
      if (!match) throw faultError(item, 'latency takes milliseconds, "50" or a range "20-200"');
      config.latency = { minMs: Number(match[1]), maxMs: Number(match[2] ?? match[1]) };
    } else if (name === 'seed') {
      config.seed = Number(value);
    } else if (RATE_NAMES[name]) {
      const next = /^(\d+)x$/.exec(value);
      config[RATE_NAMES[name]] = next ? { next: Number(next[1]) } : { fraction: Number(value) };
    } else {
      throw faultError(item, `unknown fault "${name}"`);
    }
  }
  const parsed = faultConfigSchema.safeParse(config);
  if (!parsed.success) throw faultError(spec, z.prettifyError(parsed.error));
  return parsed.data;
}

/** The spec text of a config, for `GET /_sandbox/faults` and the CLI banner. */
export function describeFaults(config: FaultConfig): string {
  const parts: string[] = [];
  if (config.latency) {
    const { minMs, maxMs } = config.latency;
    parts.push(`latency=${minMs === maxMs ? minMs : `${minMs}-${maxMs}`}`);
  }
  for (const [name, key] of SPEC_NAMES) {
    const rate = config[key];
    if (rate) parts.push(`${name}=${'next' in rate ? `${rate.next}x` : rate.fraction}`);
  }
  if (config.seed !== undefined) parts.push(`seed=${config.seed}`);
  return parts.join(',') || 'none';
}

function faultError(item: string, why: string): ConfigError {
  return new ConfigError(
    `Bad fault spec "${item}": ${why}. Example: --faults "latency=5-20,503=0.05,commit-drop=2x".`,
    { code: CODE.EVSYNC_SANDBOX_FAULTS },
  );
}
