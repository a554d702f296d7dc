/**
 * The CPU a user create costs this process before any engine work: the floor under
 * `sync-throughput`'s engine CPU per intent (issue #43 point 4). Against the sandbox in its
 * own process, no latency, `concurrency` in flight, each a fresh sandbox:
 * - a bare undici `request()` loop sending signed user creates built beforehand;
 * - the platform client's `users.create` (signing, limiter, retries, write guard,
 *   classifier, answer parsing), with the limits `clientFor` gives the throughput bench.
 *
 *   npx tsx test/bench/http-floor.ts [calls=20000] [concurrency=16] [baselineUs]
 *
 * With `baselineUs` (an older build's engine CPU per intent from `sync-throughput`), it also
 * prints what half of it leaves for the engine's own work beside the client's floor.
 */
import { Agent, request } from 'undici';
import { buildHttpRequest } from '../../src/platform/request-builder.js';
import { clientFor, cpuSeconds, fmt, machineLoad, startSandboxProcess } from './sync-bench-support.js';

const calls = Number(process.argv[2] ?? 20_000);
const concurrency = Number(process.argv[3] ?? 16);
const baselineUs = process.argv[4] === undefined ? undefined : Number(process.argv[4]);

function userParams(i: number): Record<string, string> {
  return {
    'user[client_id]': `f${i}`,
    'user[svc_auth_attributes][email]': `f${i}@bench.example.org`,
    'user[first_name]': `First${i}`,
    'user[last_name]': `Last${i}`,
    'user[company]': `Company ${i % 50}`,
    'user[position]': 'Engineer',
  };
}

/** Runs `send` for every call index with `concurrency` in flight; CPU µs per call. */
async function cpuPerCall(send: (i: number) => Promise<void>): Promise<{ us: number; perSecond: number }> {
  let next = 0;
  const cpu = cpuSeconds();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) await send(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { us: ((cpuSeconds() - cpu) * 1e6) / calls, perSecond: calls / seconds };
}

async function bareLoop(): Promise<{ us: number; perSecond: number }> {
  const sandbox = await startSandboxProcess();
  try {
    const credentials = { keyId: sandbox.keyId, signingKey: sandbox.signingKey };
    const built = Array.from({ length: calls }, (_, i) =>
      buildHttpRequest({ method: 'POST', path: '/user', body: userParams(i) }, credentials),
    );
    const agent = new Agent({ connections: concurrency });
    try {
      return await cpuPerCall(async (i) => {
        const call = built[i]!;
        const answer = await request(`${sandbox.url}${call.target}`, {
          method: call.method,
          headers: call.headers,
          body: call.body ?? null,
          dispatcher: agent,
        });
        if (answer.statusCode >= 300)
          throw new Error(`call ${i}: ${answer.statusCode} ${await answer.body.text()}`);
        JSON.parse(await answer.body.text());
      });
    } finally {
      await agent.close();
    }
  } finally {
    await sandbox.stop();
  }
}

async function platformClient(): Promise<{ us: number; perSecond: number }> {
  const sandbox = await startSandboxProcess();
  const client = clientFor(sandbox, 10_000, concurrency);
  try {
    return await cpuPerCall(async (i) => {
      await client.users.create(userParams(i));
    });
  } finally {
    await client.close();
    await sandbox.stop();
  }
}

console.log(`# The HTTP floor: ${fmt(calls)} signed user creates, ${concurrency} in flight, no latency`);
console.log(machineLoad());
const bare = await bareLoop();
console.log(`bare undici loop: ${fmt(bare.us)} µs of CPU per call (${fmt(bare.perSecond)} calls/s)`);
const client = await platformClient();
console.log(
  `platform client users.create: ${fmt(client.us)} µs of CPU per call (${fmt(client.perSecond)} calls/s)`,
);
if (baselineUs !== undefined) {
  const half = baselineUs / 2;
  console.log(
    `half of the baseline's ${fmt(baselineUs)} µs per intent is ${fmt(half)} µs: ` +
      `${fmt(half - client.us)} µs left for reading, mapping, planning, the ledger, the queue and the results`,
  );
}
console.log(machineLoad());
