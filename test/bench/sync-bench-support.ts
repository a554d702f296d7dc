import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { PlatformClient } from '../../src/platform/platform-client.js';
import { silentProgress, type ProgressSink } from '../../src/sync/progress/progress-sink.js';
import type { SandboxProcess } from '../helpers/sandbox-process.js';
import { generateUsersCsv, USERS_CSV_VERSION } from './generate-users-csv.js';

export { ROOT } from '../helpers/sandbox-process.js';

export { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';

export interface BenchDir {
  dir: string;
  ledger: Ledger;
  cleanup(): Promise<void>;
}

/** A temp folder with a fresh embedded ledger (its first open is not part of any figure). */
export async function benchDir(): Promise<BenchDir> {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-bench-'));
  const ledger = await openLedger({ dataDir: join(dir, 'ledger'), databaseUrl: '' });
  return {
    dir,
    ledger,
    cleanup: async () => {
      await ledger.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The client `evsync run` builds for a job's `rate` (`openEngine`): the same limiter
 * settings, burst included, so that a bench measures the path users run. (A bench client
 * with a burst of `concurrency` once hid a limiter that held 10,000/s jobs to 900/s.)
 */
export function clientFor(sandbox: SandboxProcess, perSecond: number, concurrency: number): PlatformClient {
  return new PlatformClient({
    baseUrl: sandbox.url,
    keyId: sandbox.keyId,
    signingKey: sandbox.signingKey,
    rateLimit: { requestsPerSecond: perSecond, concurrency },
  });
}

/** `count` users in the shipped `users` mapping's columns; `changed` rows get another last name. */
export function writeUsers(
  dir: string,
  count: number,
  options: { prefix?: string; changed?: ReadonlySet<number> } = {},
): string {
  const prefix = options.prefix ?? 'b';
  const lines = ['client_id,email,first_name,last_name,company,position'];
  for (let i = 1; i <= count; i += 1) {
    const last = options.changed?.has(i) ? `Changed${i}` : `Last${i}`;
    lines.push(`${prefix}${i},${prefix}${i}@bench.example.org,First${i},${last},Company ${i % 50},Engineer`);
  }
  const file = join(dir, 'users.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

export function writeJob(dir: string, perSecond: number, concurrency: number): string {
  const file = join(dir, 'job.yaml');
  writeFileSync(
    file,
    `name: bench\nrate: { per_second: ${perSecond}, concurrency: ${concurrency} }\nsteps:\n  - { mapping: users, source: { csv: ./users.csv } }\n`,
  );
  return file;
}

export function peakRssMb(): number {
  return Math.round((process.resourceUsage().maxRSS * 1024) / 1024 / 1024);
}

/** This process's CPU time so far, in seconds. */
export function cpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** The 1-minute load average and the number of cores, to read the figures against. */
export function machineLoad(): string {
  return `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/**
 * A progress sink that times the sending phase, so rates are measured over the calls
 * themselves (reading, planning and the ledger's plan record happen before the first).
 */
export function sendPhaseTimer(): {
  progress: ProgressSink;
  sendSeconds: () => number;
  /** `performance.now()` when the first phase started sending. */
  sendStartedAt: () => number;
} {
  let started = 0;
  let ended = 0;
  const progress: ProgressSink = {
    ...silentProgress,
    phaseStarted: () => void (started = performance.now()),
    phaseEnded: () => void (ended = performance.now()),
  };
  return { progress, sendSeconds: () => (ended - started) / 1000, sendStartedAt: () => started };
}

/** The peak RSS (VmHWM) of another live process, in MB; undefined once it has exited. */
export function peakRssOf(pid: number | undefined): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** The PostgreSQL server benches make their databases on (`BENCH_PG_URL`). */
const PG_ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function adminQuery(query: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  try {
    await admin.query(query);
  } finally {
    await admin.end();
  }
}

/** A new, empty database `name` (dropped first if there), answered by its URL. */
export async function freshDatabase(name: string): Promise<string> {
  await adminQuery(`DROP DATABASE IF EXISTS ${name}`);
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(name: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/**
 * The generated users CSV of `rows` rows, made once per generator version in the temp
 * folder; `part` takes rows `from`..`rows` with client_ids `<prefix>-<i>` (generate-users-csv.ts).
 */
export async function usersCsvFile(
  rows: number,
  part?: { from: number; prefix: string },
  /** The same file with this share of the people renamed (`isChangedUsersRow`). */
  changedPercent = 0,
): Promise<string> {
  const dir = join(tmpdir(), 'evsync-bench-csv');
  mkdirSync(dir, { recursive: true });
  const name = `${part ? `-${part.prefix}${part.from}` : ''}${changedPercent > 0 ? `-changed${changedPercent}` : ''}`;
  const file = join(dir, `users-v${USERS_CSV_VERSION}-${rows}${name}.csv`);
  if (!existsSync(file)) await generateUsersCsv(file, rows, part, changedPercent);
  return file;
}

/** The environment of a built `evsync` against `sandbox`, with `extra` (the ledger's settings). */
export function cliEnvFor(sandbox: SandboxProcess, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    EVSYNC_BASE_URL: sandbox.url,
    EVSYNC_KEY_ID: sandbox.keyId,
    EVSYNC_SIGNING_KEY: sandbox.signingKey,
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

export interface SpawnedCli {
  code: number | null;
  seconds: number;
  peakRssMb: number;
  stdout: string;
  stderr: string;
}

/**
 * A built CLI (`cli`, the path of its `dist/cli/main.js`) in its own process; its VmHWM is
 * sampled from /proc until it exits, or until `until` says to kill it (SIGKILL: a run killed
 * half-way, for a resume). Whole-process figures: spawn to exit.
 */
export async function spawnCli(
  cli: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  until?: () => Promise<boolean>,
): Promise<SpawnedCli> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4_000) stderr += chunk.toString();
  });
  let peak = 0;
  let done = false;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  void exited.then(() => (done = true));
  while (!done) {
    peak = Math.max(peak, peakRssOf(child.pid) ?? 0);
    if (until !== undefined && (await until())) {
      child.kill('SIGKILL');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The exit event, not the kill: a killed child not yet reaped still holds its locks.
  const code = await exited;
  return { code, seconds: (performance.now() - started) / 1000, peakRssMb: Math.round(peak), stdout, stderr };
}
