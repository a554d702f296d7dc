import { vi } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';

/** The environment a user sets for the CLI: this sandbox's key, an embedded ledger in `dataDir`. */
export function stubCliEnv(sandbox: RunningSandbox, dataDir: string): void {
  vi.stubEnv('EVSYNC_BASE_URL', sandbox.url);
  vi.stubEnv('EVSYNC_KEY_ID', String(sandbox.keyId));
  vi.stubEnv('EVSYNC_SIGNING_KEY', sandbox.signingKey);
  vi.stubEnv('EVSYNC_DATA_DIR', dataDir);
  vi.stubEnv('DATABASE_URL', '');
  vi.stubEnv('LOG_LEVEL', 'silent');
}

/** The sandbox's own counters, read the way an operator would: `GET /_sandbox/counters`. */
export async function sandboxCounters(
  sandbox: RunningSandbox,
): Promise<{ total: number; calls: Record<string, number>; duplicates: Record<string, string[]> }> {
  const response = await fetch(`${sandbox.url}/_sandbox/counters`);
  return (await response.json()) as {
    total: number;
    calls: Record<string, number>;
    duplicates: Record<string, string[]>;
  };
}
