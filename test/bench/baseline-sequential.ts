/**
 * The baseline evsync is compared against: the ~40-line script a user would write instead of
 * evsync — read the CSV, and for each row sign and POST /user, one after the other. No
 * retries, no ledger, no 203 handling. Run against the sandbox (separate process) with
 * 20 ms latency per request, then the engine on the same users for the speed-up.
 *
 *   npx tsx test/bench/baseline-sequential.ts [users=1000] [concurrency=16]
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadJobFile } from '../../src/sync/job-file.js';
import { runJob } from '../../src/sync/runs/run-job.js';
import { benchDir, clientFor, fmt, startSandboxProcess, writeJob, writeUsers } from './sync-bench-support.js';

const users = Number(process.argv[2] ?? 1_000);
const concurrency = Number(process.argv[3] ?? 16);

// ---- the user's script, as they would write it (spec §5 signing, fetch, a loop) ----
function sign(get: Record<string, string>, post: Record<string, string>, key: string): string {
  const pairs = (p: Record<string, string>): string[] =>
    Object.entries(p)
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}=${v}`)
      .sort();
  return createHash('md5')
    .update([...pairs(get), ...pairs(post)].join('') + key)
    .digest('hex');
}
async function naiveImport(csvFile: string, base: string, keyId: string, key: string): Promise<number> {
  const [header, ...rows] = readFileSync(csvFile, 'utf8').trim().split('\n');
  const columns = header!.split(',');
  let ok = 0;
  for (const row of rows) {
    const r = Object.fromEntries(row.split(',').map((v, i) => [columns[i], v]));
    const body: Record<string, string> = {
      client_id: r.client_id!,
      'user[first_name]': r.first_name!,
      'user[last_name]': r.last_name!,
      'user[svc_auth_attributes][email]': r.email!,
    };
    const get = { key_id: keyId, format: 'json' };
    const query = new URLSearchParams({ ...get, sig: sign(get, body, key) });
    const response = await fetch(`${base}/user?${query.toString()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(body).toString(),
    });
    if (response.status === 200 || response.status === 203) ok += 1;
    else console.error(`row ${r.client_id}: ${response.status} ${await response.text()}`);
  }
  return ok;
}
// ---- end of the user's script ----

const sandbox = await startSandboxProcess(['--faults', 'latency=20']);
const bench = await benchDir();
try {
  const csv = writeUsers(bench.dir, users, { prefix: 'n' });
  let started = performance.now();
  const ok = await naiveImport(csv, sandbox.url, sandbox.keyId, sandbox.signingKey);
  const baseline = ok / ((performance.now() - started) / 1000);
  console.log(
    `baseline (sequential script): ${fmt(ok)} users in ${fmt(ok / baseline, 1)} s → ${fmt(baseline, 1)} users/s`,
  );

  writeUsers(bench.dir, users, { prefix: 'e' });
  const job = loadJobFile(writeJob(bench.dir, 10_000, concurrency));
  const client = clientFor(sandbox, 10_000, concurrency);
  started = performance.now();
  const summary = await runJob({ ledger: bench.ledger, platform: client, concurrency }, { job });
  const engine = (summary.totals.created ?? 0) / ((performance.now() - started) / 1000);
  await client.close();
  console.log(
    `evsync (concurrency ${concurrency}): ${fmt(summary.totals.created ?? 0)} users → ${fmt(engine, 1)} users/s`,
  );
  console.log(`speed-up over the baseline at 20 ms latency: ×${fmt(engine / baseline, 1)}`);
} finally {
  await bench.cleanup();
  await sandbox.stop();
}
