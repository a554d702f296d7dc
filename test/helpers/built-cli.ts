import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/start-sandbox.js';
import { removeWorkspace } from './remove-workspace.js';

/** The built CLI (`npm test` builds it first; `npm ci` does through `prepare`). */
export const BUILT_CLI =
  process.env.EVSYNC_TEST_BUILT_CLI ?? resolve(import.meta.dirname, '../../dist/cli/main.js');

/** Throws, saying what to do, when the CLI has not been built. */
export function requireBuiltCli(): void {
  if (!existsSync(BUILT_CLI)) throw new Error(`${BUILT_CLI} is missing: run \`npm run build\` first`);
}

export interface SpawnedResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The platform settings a spawned evsync uses for one sandbox. */
export function sandboxEnv(sandbox: RunningSandbox): NodeJS.ProcessEnv {
  return {
    EVSYNC_BASE_URL: sandbox.url,
    EVSYNC_KEY_ID: sandbox.keyId,
    EVSYNC_SIGNING_KEY: sandbox.signingKey,
  };
}

/** How a test starts evsync: the built CLI, or `bin` (an installed `evsync`) when given. */
export interface CliOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** An installed `evsync` executable to run instead of `node dist/cli/main.js`. */
  bin?: string;
  /**
   * Where its standard output goes instead of a pipe to the test: a stream with a descriptor
   * (another process's stdin, as `evsync … | head` wires it). Standard error too, with `stderr`.
   */
  stdout?: Writable;
  stderr?: Writable;
}

/**
 * `evsync ARGS` as a user runs it: the built CLI in its own process, in `cwd`, with a clean
 * evsync environment (no ledger, Redis or platform settings leak from the test's own) plus
 * `env`. Returns the process, so that a test can kill it.
 */
export function spawnBuiltCli(args: readonly string[], options: CliOptions): ChildProcess {
  if (options.bin === undefined) requireBuiltCli();
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(base)) {
    if (name.startsWith('EVSYNC_') || name === 'DATABASE_URL' || name === 'REDIS_URL') delete base[name];
  }
  const [command, argv] =
    options.bin === undefined ? [process.execPath, [BUILT_CLI, ...args]] : [options.bin, [...args]];
  return spawn(command, argv, {
    cwd: options.cwd,
    // An embedded ledger's server outlives its last client this long: short in tests, which
    // make many ledgers (docs/ledger.md, "Where it lives").
    env: {
      ...base,
      LOG_LEVEL: 'warn',
      EVSYNC_LOG_FORMAT: 'json',
      EVSYNC_LEDGER_IDLE_SECONDS: '3',
      ...options.env,
    },
    stdio: ['ignore', options.stdout ?? 'pipe', options.stderr ?? 'pipe'],
  });
}

/** {@link spawnBuiltCli}, waited for, with what it printed. */
export function runBuiltCli(args: readonly string[], options: CliOptions): Promise<SpawnedResult> {
  const child = spawnBuiltCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolveResult, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolveResult({ code, signal, stdout, stderr }));
  });
}

/** A built `evsync dashboard` process, once it has said its address. */
export interface BuiltDashboard {
  child: ChildProcess;
  base: string;
  /** What it wrote on standard error so far (its logs). */
  stderr(): string;
  /** SIGTERM, and waits for it to end. */
  stop(): Promise<void>;
}

/** `evsync dashboard --port 0` as a user starts it, waited for until it says its address (60 s). */
export async function startBuiltDashboard(options: {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}): Promise<BuiltDashboard> {
  const child = spawnBuiltCli(['dashboard', '--port', '0'], options);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolveClosed) => child.once('close', resolveClosed));
    child.kill('SIGTERM');
    await closed;
  };
  const started = Date.now();
  let address: RegExpExecArray | null;
  while ((address = /evsync dashboard on (http:\S+)/.exec(stderr)) === null) {
    if (child.exitCode !== null || Date.now() - started > 60_000) {
      await stop();
      throw new Error(`the dashboard did not start: ${stderr}`);
    }
    await new Promise((resolveTick) => setTimeout(resolveTick, 50));
  }
  return { child, base: address[1]!, stderr: () => stderr, stop };
}

/** A folder for job files and an embedded ledger, and sandboxes, closed together. */
export interface CliWorkspace {
  dir: string;
  write(files: Record<string, string | Uint8Array>): void;
  /** The env of `evsync` against `sandbox`, with an embedded ledger in the workspace's `data` folder. */
  envFor(sandbox: RunningSandbox): NodeJS.ProcessEnv;
  /** `evsync ARGS` in the workspace against `sandbox` ({@link envFor}), plus `env`. */
  run(sandbox: RunningSandbox, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<SpawnedResult>;
  sandbox(options?: SandboxOptions): Promise<RunningSandbox>;
  close(): Promise<void>;
}

export function cliWorkspace(prefix = 'evsync-cli-'): CliWorkspace {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const sandboxes: RunningSandbox[] = [];
  const envFor = (sandbox: RunningSandbox): NodeJS.ProcessEnv => ({
    ...sandboxEnv(sandbox),
    EVSYNC_DATA_DIR: join(dir, 'data'),
  });
  return {
    dir,
    envFor,
    run: (sandbox, args, env = {}) => runBuiltCli(args, { cwd: dir, env: { ...envFor(sandbox), ...env } }),
    write: (files) => {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    },
    sandbox: async (options = {}) => {
      const sandbox = await startSandbox(options);
      sandboxes.push(sandbox);
      return sandbox;
    },
    close: async () => {
      await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
      await removeWorkspace(dir);
    },
  };
}
