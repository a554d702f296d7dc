/**
 * Lanes under load (docs/distributed.md, "Several conferences: one lane per conference key"):
 * five conferences, each a sandbox in its own process with its own rate limit (10 to 50
 * requests/s), each a run of `users` users at its limit, sent by 3 workers. Each conference's
 * send phase is measured as its sandbox sees it (accepted calls over the span from its first
 * call to its last). Rounds, in this order:
 * - `together`: all five at once on 3 workers holding all five keys; targets: each ≥ 90 % of
 *   its limit, and (with `alone`) within 10 % of its rate alone; 0 × 429 beyond the burst;
 * - `alone`: each alone on the same workers;
 * - `down`: all five at once, the last conference's sandbox down (not listening) for the first
 *   `downSeconds`, then up again at the same address; target: the four others within 10 % of
 *   their `together` rate;
 * - `specialised`: all five at once on 3 workers each holding the keys of two conferences
 *   (1+2, 3+4, 5+1); targets: each ≥ 90 % of its limit, refused pickups ≤ 1 % of pickups
 *   (`evsync_worker_pickups_total` of each worker's /metrics).
 * Every round: 0 duplicate creations on any sandbox.
 *
 *   npx tsx test/bench/lanes.ts [users=2000] [limits=10,20,30,40,50] [perWorker=8] [rounds=together,alone,down,specialised] [jobConcurrency=16] [downSeconds=60]
 */
import { join } from 'node:path';
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import {
  conferenceVars,
  platformBlock,
  startSandboxProcess,
  type SandboxProcess,
} from '../helpers/sandbox-process.js';
import { people, usersCsv } from '../helpers/users-csv.js';
import { fmt, machineLoad } from './sync-bench-support.js';

const users = Number(process.argv[2] ?? 2000);
const LIMITS = (process.argv[3] ?? '10,20,30,40,50').split(',').map(Number);
const PER_WORKER = Number(process.argv[4] ?? 8);
const ROUNDS = new Set((process.argv[5] ?? 'together,alone,down,specialised').split(','));
/**
 * Each job's `rate.concurrency`: its intents in flight on all workers. A rate needs rate × the
 * time of one intent in flight; on a loaded machine an intent takes longer, so keep headroom.
 */
const JOB_CONCURRENCY = Number(process.argv[6] ?? 16);
const DOWN_SECONDS = Number(process.argv[7] ?? 60);

interface Conference {
  name: string;
  limit: number;
  /** Replaced when the `down` round brings it back up. */
  sandbox: SandboxProcess;
  vars: NodeJS.ProcessEnv;
}

interface Outcome {
  rate: number;
  refused: number;
  duplicates: number;
  code: number | null;
  output: string;
}

interface BenchWorker {
  process: CliProcess;
  metricsUrl: string;
}

function jobOf(conference: Conference, round: string): string {
  return (
    `name: ${conference.name}-${round}\nrate: { per_second: ${conference.limit}, concurrency: ${JOB_CONCURRENCY} }\n` +
    platformBlock(conference.name.toUpperCase()) +
    `steps:\n  - { mapping: users, source: { csv: ./${conference.name}-${round}.csv } }\n`
  );
}

/**
 * Accepted calls/s of one conference's run as its sandbox saw them, its 429s and duplicate
 * creations. `before` runs once the run's files are written (the `down` round stops the sandbox
 * there); without it the sandbox's counters are reset. `after` runs before the counters are read
 * (the `down` round waits there for the sandbox to be back).
 */
async function sendRate(
  env: DistributedEnv,
  conference: Conference,
  round: string,
  before?: () => Promise<void>,
  after?: () => Promise<void>,
): Promise<Outcome> {
  env.write({
    [`${conference.name}-${round}.csv`]: usersCsv(people(users, `${conference.name}${round}`)),
    [`${conference.name}-${round}.yaml`]: jobOf(conference, round),
  });
  if (before) await before();
  else await conference.sandbox.resetCounters();
  const run = await env.cli(['run', `${conference.name}-${round}.yaml`], conference.vars);
  if (run.code !== 0)
    console.error(`${conference.name} ${round}: exit ${run.code}\n${run.output.slice(-2000)}`);
  await after?.();
  const { total, statuses, duplicates, firstAt, lastAt } = await conference.sandbox.counters();
  const refused = statuses['429'] ?? 0;
  return {
    // None: a run that stopped while its platform was down, read on the platform back up.
    rate:
      firstAt === undefined || lastAt === undefined
        ? 0
        : (total - refused) / Math.max(0.001, (lastAt - firstAt) / 1000),
    refused,
    duplicates: Object.keys(duplicates).length,
    code: run.code,
    output: run.output,
  };
}

/** Starts `evsync worker` with /metrics on a free port; resolves once it listens. */
async function startWorker(env: DistributedEnv, vars: NodeJS.ProcessEnv): Promise<BenchWorker> {
  const process = env.spawnCli(['worker', '--concurrency', String(PER_WORKER), '--metrics-port', '0'], vars);
  const until = Date.now() + 60_000;
  for (;;) {
    const url = /"url":"(http:\/\/[^"]+)","msg":"metrics and health listening"/.exec(process.output())?.[1];
    if (url !== undefined) return { process, metricsUrl: url };
    if (Date.now() > until) throw new Error(`worker did not start:\n${process.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stopWorkers(workers: BenchWorker[]): Promise<void> {
  for (const worker of workers) worker.process.child.kill('SIGTERM');
  await Promise.all(workers.map((worker) => worker.process.exited));
  workers.length = 0;
}

/** A worker's intent jobs taken and refused so far (`evsync_worker_pickups_total`). */
async function pickups(worker: BenchWorker): Promise<{ taken: number; refused: number }> {
  const text = await (await fetch(`${worker.metricsUrl}/metrics`)).text();
  const count = (outcome: string): number =>
    Number(
      new RegExp(`^evsync_worker_pickups_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0,
    );
  return { taken: count('taken'), refused: count('refused') };
}

function printTable(
  title: string,
  conferences: Conference[],
  at: Outcome[],
  against: Array<Outcome | undefined>,
  againstLabel: string,
  met: (i: number) => boolean,
): void {
  console.log(`\n## ${title}\n`);
  console.log(
    `| conference | limit | rate | share of limit | ${againstLabel} | rate ÷ ${againstLabel} | 429s | duplicates | exit | verdict |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const [i, c] of conferences.entries()) {
    const one = at[i]!;
    const other = against[i];
    console.log(
      `| ${c.name} | ${c.limit}/s | ${fmt(one.rate, 1)}/s | ${fmt((one.rate / c.limit) * 100, 1)} % | ` +
        `${other ? `${fmt(other.rate, 1)}/s` : '–'} | ${other ? `${fmt((one.rate / other.rate) * 100, 1)} %` : '–'} | ` +
        `${one.refused} | ${one.duplicates} | ${one.code} | ${met(i) ? 'met' : 'NOT met'} |`,
    );
  }
  console.log(`load ${machineLoad()}`);
}

async function main(): Promise<void> {
  const env = await startDistributedEnv({ sandboxArgs: ['--rate-limit', `${LIMITS[0]}/s`] });
  const conferences: Conference[] = [];
  const workers: BenchWorker[] = [];
  try {
    for (const [i, limit] of LIMITS.entries()) {
      // The last one keeps its conference in a state file, so that it comes back from the `down`
      // round's outage with the users it had, as a platform does.
      const state = i === LIMITS.length - 1 ? ['--state', join(env.dir, 'down-conference.json')] : [];
      const sandbox =
        i === 0 ? env.sandbox : await startSandboxProcess(['--rate-limit', `${limit}/s`, ...state]);
      const name = `conf${i + 1}`;
      conferences.push({ name, limit, sandbox, vars: conferenceVars(name.toUpperCase(), sandbox) });
    }
    const all = Object.assign({}, ...conferences.map((c) => c.vars)) as NodeJS.ProcessEnv;
    for (let i = 0; i < 3; i++) workers.push(await startWorker(env, all));
    console.log(
      `# lanes: ${conferences.length} conferences (${LIMITS.join(', ')} requests/s), ${users} users each, 3 workers × ${PER_WORKER}, jobs ${JOB_CONCURRENCY} at a time; rounds ${[...ROUNDS].join(', ')}; ${machineLoad()}`,
    );
    const together = await Promise.all(conferences.map((c) => sendRate(env, c, 'together')));
    const alone: Outcome[] = [];
    if (ROUNDS.has('alone')) for (const c of conferences) alone.push(await sendRate(env, c, 'alone'));
    printTable('all at once, 3 workers holding every key', conferences, together, alone, 'alone', (i) => {
      const at = together[i]!;
      const one = alone[i];
      return (
        at.rate / conferences[i]!.limit >= 0.9 &&
        (one === undefined || (at.rate / one.rate >= 0.9 && one.code === 0)) &&
        at.code === 0 &&
        at.duplicates === 0
      );
    });

    if (ROUNDS.has('down')) {
      const down = conferences[conferences.length - 1]!;
      const port = new URL(down.sandbox.url).port;
      let upAgain: Promise<void> = Promise.resolve();
      const outcomes = await Promise.all(
        conferences.map((c) =>
          c !== down
            ? sendRate(env, c, 'down')
            : sendRate(
                env,
                c,
                'down',
                async () => {
                  await c.sandbox.stop();
                  // Back at the same address, with the same key, once the outage is over.
                  upAgain = new Promise((resolve) => setTimeout(resolve, DOWN_SECONDS * 1000)).then(
                    async () => {
                      c.sandbox = await startSandboxProcess([
                        '--rate-limit',
                        `${c.limit}/s`,
                        '--state',
                        join(env.dir, 'down-conference.json'),
                        '--port',
                        port,
                        '--key-id',
                        String(c.vars[`${c.name.toUpperCase()}_KEY_ID`]),
                        '--signing-key',
                        String(c.vars[`${c.name.toUpperCase()}_SIGNING_KEY`]),
                      ]);
                    },
                  );
                },
                // Its run may stop before the outage is over: its counters are read once it is back.
                () => upAgain,
              ),
        ),
      );
      await upAgain;
      const stopped = outcomes[conferences.indexOf(down)]!;
      let resumed = '';
      if (stopped.code !== 0) {
        // Stopped while its platform was down, as `platform down: the run stops` says: finished
        // by the resume its output prints, once the platform is back.
        const runId = /evsync resume (\S+)/.exec(stopped.output)?.[1];
        const resume = runId
          ? await env.cli(['resume', runId], down.vars)
          : { code: null, output: 'no resume printed' };
        const after = await down.sandbox.counters();
        const users = /user\s+(\d+)\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+(\d+)/.exec(resume.output);
        resumed =
          `${down.name}: its run stopped (exit ${stopped.code}) while its platform was down; ` +
          `\`evsync resume ${runId ?? '?'}\` once back: exit ${resume.code}, ${users?.[1] ?? '?'} created, ${users?.[2] ?? '?'} failed, ` +
          `${Object.keys(after.duplicates).length} duplicates`;
      }
      printTable(
        `all at once, ${down.name}'s platform down for the first ${DOWN_SECONDS} s (its run stops, then is resumed)`,
        conferences,
        outcomes,
        together,
        'all up',
        (i) =>
          conferences[i] === down
            ? outcomes[i]!.duplicates === 0
            : outcomes[i]!.rate / together[i]!.rate >= 0.9 &&
              outcomes[i]!.code === 0 &&
              outcomes[i]!.duplicates === 0,
      );
      if (resumed) console.log(resumed);
    }

    if (ROUNDS.has('specialised')) {
      await stopWorkers(workers);
      // Each worker holds two conferences' keys: 1+2, 3+4, 5+1.
      const holds = [0, 1, 2].map((w) => [2 * w, (2 * w + 1) % conferences.length]);
      for (const held of holds)
        workers.push(
          await startWorker(
            env,
            Object.assign({}, ...held.map((i) => conferences[i]!.vars)) as NodeJS.ProcessEnv,
          ),
        );
      const outcomes = await Promise.all(conferences.map((c) => sendRate(env, c, 'specialised')));
      const counts = await Promise.all(workers.map(pickups));
      const taken = counts.reduce((sum, c) => sum + c.taken, 0);
      const refused = counts.reduce((sum, c) => sum + c.refused, 0);
      const share = refused / Math.max(1, taken + refused);
      printTable(
        `all at once, 3 specialised workers (keys of conferences ${holds.map((h) => h.map((i) => i + 1).join('+')).join(', ')})`,
        conferences,
        outcomes,
        together,
        'all-key workers',
        (i) =>
          outcomes[i]!.rate / conferences[i]!.limit >= 0.9 &&
          outcomes[i]!.code === 0 &&
          outcomes[i]!.duplicates === 0,
      );
      console.log(
        `pickups: ${fmt(taken)} taken, ${fmt(refused)} refused (${fmt(share * 100, 2)} %; target ≤ 1 %: ${share <= 0.01 ? 'met' : 'NOT met'})`,
      );
    }
  } finally {
    await stopWorkers(workers);
    await Promise.all(conferences.slice(1).map((c) => c.sandbox.stop().catch(() => undefined)));
    await env.close();
  }
}

await main();
