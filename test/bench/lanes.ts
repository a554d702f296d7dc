/**
 * Lanes under load (docs/distributed.md, "Several conferences: one lane per conference key"):
 * five conferences, each a sandbox in its own process with its own rate limit (10 to 50
 * requests/s), each a run of `users` users at its limit, sent by 3 workers holding all five
 * keys. Each conference's send phase is measured as its sandbox sees it (accepted calls over the
 * span from its first call to its last), first all five at once, then each alone on the same
 * workers. Targets: at once, each conference ≥ 90 % of its limit and within 10 % of alone.
 *
 *   npx tsx test/bench/lanes.ts [users=2000] [limits=10,20,30,40,50] [perWorker=8] [alone=yes] [jobConcurrency=16]
 *
 * `alone=no` measures all at once only (each alone takes users ÷ limit seconds in turn).
 */
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { people, usersCsv } from '../helpers/users-csv.js';
import { fmt, machineLoad } from './sync-bench-support.js';

const users = Number(process.argv[2] ?? 2000);
const LIMITS = (process.argv[3] ?? '10,20,30,40,50').split(',').map(Number);
const PER_WORKER = Number(process.argv[4] ?? 8);
const ALONE = (process.argv[5] ?? 'yes') !== 'no';
/**
 * Each job's `rate.concurrency`: its intents in flight on all workers. A rate needs rate × the
 * time of one intent in flight; on a loaded machine an intent takes longer, so keep headroom.
 */
const JOB_CONCURRENCY = Number(process.argv[6] ?? 16);

interface Conference {
  name: string;
  limit: number;
  sandbox: SandboxProcess;
  vars: NodeJS.ProcessEnv;
}

function jobOf(conference: Conference, round: string): string {
  const upper = conference.name.toUpperCase();
  return (
    `name: ${conference.name}-${round}\nrate: { per_second: ${conference.limit}, concurrency: ${JOB_CONCURRENCY} }\n` +
    `platform: { base_url_env: ${upper}_URL, key_id_env: ${upper}_KEY_ID, signing_key_env: ${upper}_SIGNING_KEY }\n` +
    `steps:\n  - { mapping: users, source: { csv: ./${conference.name}-${round}.csv } }\n`
  );
}

/** Accepted calls/s of one conference's run as its sandbox saw them, and its 429s. */
async function sendRate(
  env: DistributedEnv,
  conference: Conference,
  round: string,
): Promise<{ rate: number; refused: number; code: number | null }> {
  await conference.sandbox.resetCounters();
  env.write({
    [`${conference.name}-${round}.csv`]: usersCsv(people(users, `${conference.name}${round}`)),
    [`${conference.name}-${round}.yaml`]: jobOf(conference, round),
  });
  const run = await env.cli(['run', `${conference.name}-${round}.yaml`], conference.vars);
  if (run.code !== 0) console.error(run.output);
  const { total, statuses, firstAt, lastAt } = await conference.sandbox.counters();
  if (firstAt === undefined || lastAt === undefined) throw new Error(`${conference.name}: no call`);
  const refused = statuses['429'] ?? 0;
  return { rate: (total - refused) / Math.max(0.001, (lastAt - firstAt) / 1000), refused, code: run.code };
}

async function main(): Promise<void> {
  const env = await startDistributedEnv({ built: true, sandboxArgs: ['--rate-limit', `${LIMITS[0]}/s`] });
  const conferences: Conference[] = [];
  const workers: CliProcess[] = [];
  try {
    for (const [i, limit] of LIMITS.entries()) {
      const sandbox = i === 0 ? env.sandbox : await startSandboxProcess(['--rate-limit', `${limit}/s`]);
      const name = `conf${i + 1}`;
      const upper = name.toUpperCase();
      conferences.push({
        name,
        limit,
        sandbox,
        vars: {
          [`${upper}_URL`]: sandbox.url,
          [`${upper}_KEY_ID`]: sandbox.keyId,
          [`${upper}_SIGNING_KEY`]: sandbox.signingKey,
        },
      });
    }
    const all = Object.assign({}, ...conferences.map((c) => c.vars)) as NodeJS.ProcessEnv;
    for (let i = 0; i < 3; i++)
      workers.push(env.spawnCli(['worker', '--concurrency', String(PER_WORKER)], all));
    console.log(
      `# lanes: ${conferences.length} conferences (${LIMITS.join(', ')} requests/s), ${users} users each, 3 workers × ${PER_WORKER}, jobs ${JOB_CONCURRENCY} at a time; load ${machineLoad()}`,
    );
    const together = await Promise.all(conferences.map((c) => sendRate(env, c, 'together')));
    console.log(`all at once done; load ${machineLoad()}`);
    const alone: Array<Awaited<ReturnType<typeof sendRate>>> = [];
    if (ALONE) for (const c of conferences) alone.push(await sendRate(env, c, 'alone'));
    console.log(
      '\n| conference | limit | at once | share of limit | alone | at once ÷ alone | 429s (at once, alone) | verdict |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [i, c] of conferences.entries()) {
      const at = together[i]!;
      const one = alone[i] ?? { rate: Number.NaN, refused: Number.NaN, code: 0 };
      const share = at.rate / c.limit;
      const vsAlone = at.rate / one.rate;
      const met = share >= 0.9 && (!ALONE || vsAlone >= 0.9) && at.code === 0 && one.code === 0;
      console.log(
        `| ${c.name} | ${c.limit}/s | ${fmt(at.rate, 1)}/s | ${fmt(share * 100, 1)} % | ${fmt(one.rate, 1)}/s | ${fmt(vsAlone * 100, 1)} % | ${at.refused}, ${one.refused} | ${met ? 'met' : 'NOT met'} |`,
      );
    }
    console.log(`load ${machineLoad()}`);
  } finally {
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((worker) => worker.exited));
    await Promise.all(conferences.slice(1).map((c) => c.sandbox.stop()));
    await env.close();
  }
}

await main();
