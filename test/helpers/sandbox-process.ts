import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { BUILT_CLI, requireBuiltCli } from './built-cli.js';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface SandboxProcess {
  url: string;
  keyId: string;
  signingKey: string;
  child: ChildProcess;
  counters(): Promise<{
    total: number;
    calls: Record<string, number>;
    statuses: Record<string, number>;
    duplicates: Record<string, string[]>;
    firstAt?: number;
    lastAt?: number;
  }>;
  resetCounters(): Promise<void>;
  /** CPU time the sandbox process has used so far, in seconds. */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The sandbox in its own process (the built CLI's `evsync sandbox`), so it does not share our
 * event loop. Built, not through `npx tsx`: a start then costs 0.4 s of CPU rather than 1.5 s,
 * on a suite whose time is CPU-bound.
 */
export async function startSandboxProcess(extraArgs: string[] = []): Promise<SandboxProcess> {
  requireBuiltCli();
  const signingKey = randomBytes(16).toString('hex');
  const child = spawn(
    process.execPath,
    [BUILT_CLI, 'sandbox', '--port', '0', '--json', '--signing-key', signingKey, ...extraArgs],
    // Its own process group, so that stopping it stops whatever it started too.
    {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    },
  );
  const line = await new Promise<string>((resolveLine, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolveLine);
    child.once('exit', (code) => reject(new Error(`sandbox exited early (${code})`)));
  });
  const started = JSON.parse(line) as { url: string; keyId: string };
  const admin = async (method: string, path: string): Promise<unknown> => {
    const response = await fetch(`${started.url}/_sandbox/${path}`, { method });
    return response.json();
  };
  return {
    url: started.url,
    keyId: started.keyId,
    signingKey,
    child,
    counters: async () => (await admin('GET', 'counters')) as Awaited<ReturnType<SandboxProcess['counters']>>,
    resetCounters: async () => {
      await admin('DELETE', 'counters');
    },
    cpuSeconds: async () => ((await admin('GET', 'health')) as { cpuMicros: number }).cpuMicros / 1e6,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * A job's `platform:` block naming the variables `PREFIX_URL`, `PREFIX_KEY_ID` and
 * `PREFIX_SIGNING_KEY` (a conference of its own), with its newline.
 */
export function platformBlock(prefix: string): string {
  return `platform: { base_url_env: ${prefix}_URL, key_id_env: ${prefix}_KEY_ID, signing_key_env: ${prefix}_SIGNING_KEY }\n`;
}

/** The variables {@link platformBlock} names, set to a sandbox's address and key. */
export function conferenceVars(
  prefix: string,
  sandbox: Pick<SandboxProcess, 'url' | 'keyId' | 'signingKey'>,
): NodeJS.ProcessEnv {
  return {
    [`${prefix}_URL`]: sandbox.url,
    [`${prefix}_KEY_ID`]: sandbox.keyId,
    [`${prefix}_SIGNING_KEY`]: sandbox.signingKey,
  };
}
