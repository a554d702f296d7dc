/**
 * With the sandbox limited to 50 requests/s per key: the share of that rate evsync
 * sustains (target ≥ 95 %) and the share of requests answered 429 (target ≤ 1 %).
 *
 *   npx tsx test/bench/sync-rate-limited.ts [users=1500] [limit=50]
 */
import { loadJobFile } from '../../src/sync/job-file.js';
import { runJob } from '../../src/sync/runs/run-job.js';
import {
  benchDir,
  clientFor,
  fmt,
  sendPhaseTimer,
  startSandboxProcess,
  writeJob,
  writeUsers,
} from './sync-bench-support.js';

const users = Number(process.argv[2] ?? 1_500);
const limit = Number(process.argv[3] ?? 50);
const concurrency = 8;

const sandbox = await startSandboxProcess(['--rate-limit', `${limit}/s`]);
const bench = await benchDir();
try {
  writeUsers(bench.dir, users, { prefix: 'r' });
  // The job's rate is set to the platform's published limit, as an operator would.
  const job = loadJobFile(writeJob(bench.dir, limit, concurrency));
  const client = clientFor(sandbox, limit, concurrency);
  await sandbox.resetCounters();
  const started = performance.now();
  const { progress, sendSeconds: sendPhaseSeconds } = sendPhaseTimer();
  const summary = await runJob({ ledger: bench.ledger, platform: client, concurrency, progress }, { job });
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  const counters = await sandbox.counters();
  const accepted = counters.total - (counters.statuses['429'] ?? 0);
  const sendSeconds = sendPhaseSeconds();
  const sustained = accepted / sendSeconds;
  console.log(
    `users: ${fmt(users)}  limit: ${limit}/s  created: ${fmt(summary.totals.created ?? 0)}  failed: ${summary.totals.failed ?? 0}`,
  );
  console.log(
    `requests: ${fmt(counters.total)}  answered 429: ${counters.statuses['429'] ?? 0} (${fmt(((counters.statuses['429'] ?? 0) * 100) / counters.total, 2)} %, target ≤ 1 %)`,
  );
  console.log(
    `wall time ${fmt(seconds, 1)} s, sending ${fmt(sendSeconds, 1)} s; accepted requests/s while sending ${fmt(sustained, 1)} = ${fmt((sustained * 100) / limit, 1)} % of the limit (target ≥ 95 %)`,
  );
} finally {
  await bench.cleanup();
  await sandbox.stop();
}
