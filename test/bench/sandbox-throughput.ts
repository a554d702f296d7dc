/**
 * Requests/s of the sandbox on loopback, with the sandbox in its own process (started as
 * `evsync sandbox`) and autocannon as the load generator in this one. Requests are signed
 * beforehand so the generator does no hashing while it measures.
 *
 *   npx tsx test/bench/sandbox-throughput.ts [--seconds 10] [--connections 32]
 *
 * Targets (docs/design.md, "Performance targets"): ≥ 5,000/s signed GET /user/member/{id}, ≥ 2,000/s signed user create.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { encodeForm } from '../../src/platform/params.js';
import { signRequest } from '../../src/platform/signing.js';

// autocannon ships no types: the few fields used here are declared below.
interface CannonRequest {
  method?: 'GET' | 'POST';
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: CannonRequest) => CannonRequest;
}
interface CannonOptions {
  url: string;
  connections?: number;
  duration?: number;
  requests: CannonRequest[];
}
interface CannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: CannonOptions,
) => Promise<CannonResult>;

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(args[index + 1]);
};
const SECONDS = option('seconds', 10);
const CONNECTIONS = option('connections', 32);
const SEEDED_USERS = 1_000;
const KEY = { keyId: 1, signingKey: 'bench-signing-key' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

interface Figures {
  name: string;
  target: number;
  perSecond: number;
  p50: number;
  p99: number;
  ok: number;
  other: number;
  errors: number;
  /** Sandbox CPU time per answered request, in microseconds. */
  cpuMicrosPerRequest: number;
}

interface Health {
  maxRssBytes: number;
  cpuMicros: number;
}

async function health(url: string): Promise<Health> {
  return (await (await request(`${url}/_sandbox/health`)).body.json()) as Health;
}

/**
 * The floor to compare with: a bare node:http server that answers a fixed user-sized JSON
 * body to every request, with no routing, parsing, signing or state. Run in its own process
 * like the sandbox, on the same machine at the same moment.
 */
const BARE_SERVER = `
const http = require('node:http');
const body = JSON.stringify({ id: 1, first_name: 'Ada', last_name: 'Lovelace', current_state: 'active',
  employee: { id: 2, position: null, organization: null }, updated_on: new Date().toISOString(),
  profile: { custom_data: {} }, tags: [], content: null, icon_id: null, client_ids: ['c1'], phones: [],
  web_links: {}, addresses: [] });
const server = http.createServer((req, res) => {
  if (req.url.startsWith('/_sandbox/health')) {
    const cpu = process.cpuUsage();
    res.end(JSON.stringify({ cpuMicros: cpu.user + cpu.system, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port })));
process.on('SIGTERM', () => process.exit(0));
`;

function createParams(n: number): Record<string, string> {
  return {
    client_id: `bench-${n}`,
    'user[first_name]': `First${n}`,
    'user[last_name]': `Last${n}`,
    'user[svc_auth_attributes][email]': `bench${n}@example.org`,
    'user[employee_attributes][position]': 'Engineer',
    'user[employee_attributes][company_attributes][name]': 'Example Ltd',
    'user[item_attributes][tags_list]': 'bench, load',
  };
}

function signedCreate(n: number): { path: string; body: string } {
  const body = createParams(n);
  const { query } = signRequest({ ...KEY, query: { format: 'json' }, body });
  return { path: `/user?${encodeForm(query)}`, body: encodeForm(body) };
}

async function startServerProcess(args: string[]): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}`)));
  });
  return { url: (JSON.parse(line) as { url: string }).url, stop: () => child.kill('SIGTERM') };
}

async function run(name: string, target: number, options: CannonOptions): Promise<Figures> {
  const before = await health(options.url);
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const after = await health(options.url);
  const answered = result['2xx'] + result.non2xx;
  return {
    cpuMicrosPerRequest: answered === 0 ? 0 : (after.cpuMicros - before.cpuMicros) / answered,
    name,
    target,
    perSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    other: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

const sandbox = await startServerProcess([
  '--import',
  'tsx',
  'src/cli/main.ts',
  'sandbox',
  '--port',
  '0',
  '--json',
  '--signing-key',
  KEY.signingKey,
]);
const bare = await startServerProcess(['-e', BARE_SERVER]);
try {
  // Users to read: created through the API, like any other.
  const ids: number[] = [];
  for (let n = 0; n < SEEDED_USERS; n += 1) {
    const { path, body } = signedCreate(1_000_000 + n);
    const answer = await request(`${sandbox.url}${path}`, { method: 'POST', body, headers: FORM });
    ids.push(((await answer.body.json()) as { id: number }).id);
  }
  const reads = ids.map((id) => {
    const { query } = signRequest({ ...KEY, query: { format: 'json' } });
    return { method: 'GET' as const, path: `/user/member/${id}?${encodeForm(query)}` };
  });
  await run('warm-up', 0, { url: sandbox.url, duration: 2, requests: reads });
  const get = await run('signed GET /user/member/{id}', 5_000, { url: sandbox.url, requests: reads });
  const floor = await run('bare node:http, fixed JSON', 5_000, { url: bare.url, requests: reads });

  // Every create is a new user: a shared counter hands each request the next payload.
  const creates = Array.from({ length: Math.max(60_000, SECONDS * 8_000) }, (_, n) => signedCreate(n));
  let next = 0;
  const create = await run('signed POST /user (create)', 2_000, {
    url: sandbox.url,
    requests: [
      {
        method: 'POST',
        headers: FORM,
        setupRequest: (req) => {
          const payload = creates[next++ % creates.length]!;
          return { ...req, path: payload.path, body: payload.body };
        },
      },
    ],
  });
  const final = await health(sandbox.url);
  const counters = (await (await request(`${sandbox.url}/_sandbox/counters`)).body.json()) as {
    statuses: Record<string, number>;
    duplicates: Record<string, string[]>;
  };

  console.log(
    `sandbox throughput: ${SECONDS} s per run, ${CONNECTIONS} connections, loopback, separate processes`,
  );
  for (const figures of [get, floor, create]) {
    console.log(
      `${figures.name.padEnd(32)} ${String(figures.perSecond).padStart(7)} req/s  ` +
        `p50 ${figures.p50} ms  p99 ${figures.p99} ms  2xx ${figures.ok}  other ${figures.other}  errors ${figures.errors}  ` +
        `ratio vs target ${figures.target}/s: ${(figures.perSecond / figures.target).toFixed(2)}×`,
    );
    // What one core of the sandbox could serve if the generator and the neighbours left it alone.
    const capacity = Math.round(1_000_000 / figures.cpuMicrosPerRequest);
    console.log(
      `${''.padEnd(32)} sandbox CPU ${figures.cpuMicrosPerRequest.toFixed(0)} µs/request → ` +
        `${capacity} req/s per fully used core (${(capacity / figures.target).toFixed(2)}× target)`,
    );
  }
  const load = loadavg()[0]!.toFixed(1);
  console.log(
    `machine: ${cpus().length} cores, load average ${load} at the end (other work shares the cores)`,
  );
  console.log(`sandbox peak RSS: ${(final.maxRssBytes / 1024 / 1024).toFixed(0)} MB`);
  console.log(
    `sandbox statuses: ${JSON.stringify(counters.statuses)}; duplicate creates: ${JSON.stringify(counters.duplicates)}`,
  );
  console.log(
    `signed GET vs bare node:http at the same time: ${(get.perSecond / floor.perSecond).toFixed(2)}× the requests/s, ` +
      `${(get.cpuMicrosPerRequest / floor.cpuMicrosPerRequest).toFixed(2)}× the CPU per request`,
  );
} finally {
  sandbox.stop();
  bare.stop();
}
