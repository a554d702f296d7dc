/**
 * Issue #42's target: `evsync forget` (the built CLI) on a ledger of `users` users with
 * `nights` nightly runs after their import (1 % of the people changed each night, the rest
 * recorded as unchanged keys, nothing pruned), generated straight into the ledger with SQL.
 * Printed: the ledger's size, then the wall time and peak RSS (VmHWM) of a dry run and of the
 * erasure itself of one person who is in the import and in some nights. Target: < 30 s,
 * bounded memory.
 *
 *   npx tsx test/bench/forget-scale.ts [users=200000] [nights=365] [ledger=postgres|embedded]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { conferenceUrl } from '../../src/config/conference.js';
import { embeddedPaths, socketUrl } from '../../src/ledger/embedded-paths.js';
import { stopEmbeddedServer } from '../../src/ledger/embedded-server.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import {
  cliEnvFor,
  dropDatabase,
  fmt,
  freshDatabase,
  machineLoad,
  ROOT,
  spawnCli,
  startSandboxProcess,
} from './sync-bench-support.js';

const users = Number(process.argv[2] ?? 200_000);
const nights = Number(process.argv[3] ?? 365);
const kind = (process.argv[4] ?? 'postgres') as 'postgres' | 'embedded';
const CHUNK = 1000;
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** Fills the ledger: the import, `nights` nights of 1 % changed, unchanged keys per chunk. */
async function generate(client: pg.Client, conference: number): Promise<void> {
  const changed = Math.max(1, Math.floor(users / 100));
  const params = (i: string): string =>
    `jsonb_build_object('client_id', 'u' || ${i}, 'user[svc_auth_attributes][email]', 'user' || ${i} || '@example.org', ` +
    `'user[first_name]', 'First' || ${i}, 'user[last_name]', 'Last' || ${i}, 'user[company]', 'Company ' || (${i} % 97))`;
  await client.query(
    `INSERT INTO runs (id, job_name, mode, status, started_at, finished_at, conference_id)
     SELECT 'bench-' || n, 'nightly', 'upsert', 'completed', now() - (${nights} - n) * interval '1 day',
            now() - (${nights} - n) * interval '1 day' + interval '5 minutes', $1
     FROM generate_series(0, ${nights}) n`,
    [conference],
  );
  await client.query(
    `INSERT INTO intent_results (run_id, kind, key, action, params, platform_id, http_status)
     SELECT 'bench-0', 'user', 'u' || i, 'created', ${params('i')}, 1000000 + i, 201
     FROM generate_series(1, ${users}) i`,
  );
  await client.query(
    `INSERT INTO intent_results (run_id, kind, key, action, params, platform_id, http_status)
     SELECT 'bench-' || n, 'user', 'u' || i, 'updated', ${params('i')}, 1000000 + i, 200
     FROM generate_series(1, ${nights}) n,
          LATERAL (SELECT ((n * ${changed} + k) % ${users}) + 1 AS i FROM generate_series(0, ${changed - 1}) k) c`,
  );
  await client.query(
    `INSERT INTO run_unchanged (run_id, kind, n, keys)
     SELECT 'bench-' || n, 'user', ${CHUNK}, ARRAY(SELECT 'u' || j FROM generate_series(c * ${CHUNK} + 1, LEAST(c * ${CHUNK} + ${CHUNK}, ${users})) j)
     FROM generate_series(1, ${nights}) n, generate_series(0, ${Math.ceil(users / CHUNK) - 1}) c`,
  );
  await client.query(
    `INSERT INTO synced_hashes (conference_id, kind, key, hash, run_id)
     SELECT $1, 'user', 'u' || i, md5(i::text), 'bench-0' FROM generate_series(1, ${users}) i`,
    [conference],
  );
  await client.query(
    `INSERT INTO id_map (conference_id, kind, client_id, platform_id)
     SELECT $1, 'user', 'u' || i, 1000000 + i FROM generate_series(1, ${users}) i`,
    [conference],
  );
  await client.query('ANALYZE');
}

const sandbox = await startSandboxProcess();
const folder = mkdtempSync(join(tmpdir(), 'evsync-bench-forget-'));
const database = 'evsync_bench_forget';
try {
  const env: NodeJS.ProcessEnv =
    kind === 'postgres'
      ? { DATABASE_URL: await freshDatabase(database) }
      : { EVSYNC_DATA_DIR: join(folder, 'data') };
  // Opened once to migrate (and, embedded, to start its server); then filled over SQL.
  const ledger = await openLedger({
    dataDir: join(folder, 'data'),
    databaseUrl: env.DATABASE_URL ?? '',
  });
  const conference = await ledger.conferenceFor(conferenceUrl(sandbox.url), Number(sandbox.keyId));
  const url =
    kind === 'postgres' ? env.DATABASE_URL! : socketUrl(embeddedPaths(join(folder, 'data')).socketDir);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const started = performance.now();
  await generate(client, conference.id);
  const [size] = (
    await client.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes')
  ).rows;
  const tables = (
    await client.query<{ name: string; bytes: string }>(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind = 'r' AND n.nspname = current_schema() ORDER BY 2 DESC LIMIT 5`,
    )
  ).rows;
  await client.end();
  await ledger.close();
  console.log(
    `largest tables: ${tables.map((t) => `${t.name} ${(Number(t.bytes) / 1e6).toFixed(0)} MB`).join(', ')}`,
  );
  console.log(
    `ledger (${kind}): ${fmt(users)} users, ${nights} nights, ${(Number(size!.bytes) / 1e6).toFixed(0)} MB, ` +
      `generated in ${((performance.now() - started) / 1000).toFixed(0)} s; machine load ${machineLoad()}`,
  );
  // In the import and, at 1 % a night, in a few nights.
  const person = `u${Math.floor(users / 3)}`;
  for (const args of [
    ['forget', '--client-id', person, '--dry-run'],
    ['forget', '--client-id', person, '--reason', 'bench'],
  ]) {
    const result = await spawnCli(CLI, args, folder, cliEnvFor(sandbox, env));
    if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    console.log(
      `${args.includes('--dry-run') ? 'dry run' : 'forget '}  ${result.seconds.toFixed(1)} s wall, peak RSS ${result.peakRssMb} MB (target < 30 s)`,
    );
    console.log(
      result.stdout
        .split('\n')
        .filter((line) => line.includes('Ledger:'))
        .join('\n'),
    );
  }
} finally {
  await sandbox.stop();
  if (kind === 'postgres') await dropDatabase(database);
  else await stopEmbeddedServer(join(folder, 'data'));
  rmSync(folder, { recursive: true, force: true });
}
