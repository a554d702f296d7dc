/**
 * The nightly re-run: the same 20,000 users again with 1 % of them changed. Counts the
 * calls the platform saw (exactly the changed rows, as updates), times the plan `evsync
 * plan` makes (in memory) and the nightly run, which plans while it sends.
 *
 *   npx tsx test/bench/sync-nightly.ts [users=20000] [changedPercent=1]
 */
import { loadJobFile } from '../../src/sync/job-file.js';
import { planJob } from '../../src/sync/runs/plan-job.js';
import { runJob } from '../../src/sync/runs/run-job.js';
import { benchDir, clientFor, fmt, startSandboxProcess, writeJob, writeUsers } from './sync-bench-support.js';

const users = Number(process.argv[2] ?? 20_000);
const changedPercent = Number(process.argv[3] ?? 1);
const concurrency = 16;

const sandbox = await startSandboxProcess();
const bench = await benchDir();
try {
  writeUsers(bench.dir, users);
  const job = loadJobFile(writeJob(bench.dir, 10_000, concurrency));
  const client = clientFor(sandbox, 10_000, concurrency);
  const deps = { ledger: bench.ledger, platform: client, concurrency };
  let started = performance.now();
  const first = await runJob(deps, { job });
  console.log(
    `first import: ${fmt(first.totals.created ?? 0)} created in ${fmt((performance.now() - started) / 1000, 1)} s`,
  );

  const step = Math.round(100 / changedPercent);
  const changed = new Set<number>();
  for (let i = step; i <= users; i += step) changed.add(i);
  writeUsers(bench.dir, users, { changed });

  started = performance.now();
  const planned = await planJob({ ...deps, vendor: 'svc' }, { job });
  const planSeconds = (performance.now() - started) / 1000;
  console.log(
    `plan of the nightly run: ${fmt(planSeconds, 2)} s in all (read CSV + map + load ${fmt(users)} hashes + diff); ` +
      `the diff itself ${fmt(planned.planMs)} ms (target < 2 s)`,
  );

  await sandbox.resetCounters();
  started = performance.now();
  const nightly = await runJob(deps, { job });
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  const counters = await sandbox.counters();
  console.log(
    `nightly run: ${JSON.stringify(nightly.totals)} in ${fmt(seconds, 1)} s, planned while sending ` +
      `(read CSV + map + hashes chunk by chunk + diff + record; its diff ${fmt(nightly.plan?.planMs ?? NaN)} ms)`,
  );
  console.log(
    `platform calls: ${counters.total} (${JSON.stringify(counters.calls)}); changed rows: ${changed.size} → ` +
      `${counters.total === changed.size && counters.calls['PUT /user/member/{id}'] === changed.size ? 'exactly one update each' : 'MISMATCH'}`,
  );
} finally {
  await bench.cleanup();
  await sandbox.stop();
}
