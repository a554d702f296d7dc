import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { BUILT_CLI } from './built-cli.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { SERVICES } from './services.js';
import { people, usersCsv } from './users-csv.js';

export interface CliProcess {
  child: ChildProcess;
  /** Resolves once the process has exited, to its code (null after a signal). */
  exited: Promise<number | null>;
  output(): string;
}

/**
 * Distributed mode as its users run it: a sandbox in its own process, a PostgreSQL
 * database and a Redis key prefix of this test file's own, `evsync worker` and `evsync
 * run` as separate OS processes, and a folder for job files.
 */
export interface DistributedEnv {
  sandbox: SandboxProcess;
  dir: string;
  prefix: string;
  databaseUrl: string;
  /** The environment every evsync process of the test gets. */
  env: NodeJS.ProcessEnv;
  redis: Redis;
  write(files: Record<string, string>): void;
  /** Writes a users-only job of `count` people at `perSecond`, `concurrency` at a time; its file name. */
  usersJob(name: string, count: number, perSecond: number, concurrency: number): string;
  /** Starts `evsync worker`; stopped by `close` if still running. */
  startWorker(concurrency?: number): CliProcess;
  /** Starts an evsync command in the job folder; `extraEnv` overrides `env`. */
  spawnCli(args: string[], extraEnv?: NodeJS.ProcessEnv): CliProcess;
  /** Runs an evsync command in the job folder to its end. */
  cli(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }>;
  /** Deletes every key of the prefix: Redis restarted empty, for this installation. */
  loseRedis(): Promise<number>;
  /** The shared ledger, for assertions (opened once, closed by `close`). */
  ledger(): Promise<Ledger>;
  /** Another empty PostgreSQL database (dropped by `close`): its URL. */
  otherDatabase(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startDistributedEnv(options: { sandboxArgs?: string[] } = {}): Promise<DistributedEnv> {
  const id = randomBytes(4).toString('hex');
  const database = `evsync_dist_${id}`;
  const databases: string[] = [];
  const createDatabase = async (name: string): Promise<string> => {
    const admin = new pg.Client({ connectionString: SERVICES.postgres.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    databases.push(name);
    return SERVICES.postgres.url.replace(/\/test$/, `/${name}`);
  };
  const databaseUrl = await createDatabase(database);
  const prefix = `evsync-test-${id}`;
  const sandbox = await startSandboxProcess(options.sandboxArgs ?? []);
  const dir = mkdtempSync(join(tmpdir(), 'evsync-dist-'));
  const redis = new Redis(SERVICES.redis.url);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    EVSYNC_BASE_URL: sandbox.url,
    EVSYNC_KEY_ID: sandbox.keyId,
    EVSYNC_SIGNING_KEY: sandbox.signingKey,
    DATABASE_URL: databaseUrl,
    REDIS_URL: SERVICES.redis.url,
    EVSYNC_QUEUE_PREFIX: prefix,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  };
  const children = new Set<ChildProcess>();
  const deletePrefixKeys = async (): Promise<number> => {
    let deleted = 0;
    let cursor = '0';
    do {
      // `prefix*`: a test may use prefixes of its own that start with the file's.
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
    return deleted;
  };
  let ledger: Ledger | undefined;

  const spawnCli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): CliProcess => {
    // The built CLI (`dist/`), as users run it.
    const child = spawn(process.execPath, [BUILT_CLI, ...args], {
      cwd: dir,
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    const chunks: string[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => {
        children.delete(child);
        resolve(code);
      }),
    );
    return { child, exited, output: () => chunks.join('') };
  };

  return {
    sandbox,
    dir,
    prefix,
    databaseUrl,
    env,
    redis,
    write: (files) => {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    },
    usersJob: (name, count, perSecond, concurrency) => {
      writeFileSync(join(dir, `${name}.csv`), usersCsv(people(count, name)));
      const steps = `  - { mapping: users, source: { csv: ./${name}.csv } }\n`;
      writeFileSync(
        join(dir, `${name}.yaml`),
        `name: ${name}\nrate: { per_second: ${perSecond}, concurrency: ${concurrency} }\nsteps:\n${steps}`,
      );
      return `${name}.yaml`;
    },
    startWorker: (concurrency = 4) => spawnCli(['worker', '--concurrency', String(concurrency)]),
    spawnCli,
    cli: async (args, extraEnv) => {
      const process = spawnCli(args, extraEnv);
      const code = await process.exited;
      return { code, output: process.output() };
    },
    loseRedis: deletePrefixKeys,
    ledger: async () => (ledger ??= await openLedger({ databaseUrl })),
    otherDatabase: (name) => createDatabase(`${database}_${name}`),
    close: async () => {
      await Promise.all(
        [...children].map(async (child) => {
          const gone = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGKILL');
          await gone;
        }),
      );
      await ledger?.close();
      await deletePrefixKeys();
      redis.disconnect();
      await sandbox.stop();
      const drop = new pg.Client({ connectionString: SERVICES.postgres.url });
      await drop.connect();
      for (const name of databases) await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await drop.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
