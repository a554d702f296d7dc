/**
 * Dashboard server time (docs/dashboard.md): a ledger holding a run of 100,000 results (a
 * realistic mix: users, events, speaker links; ~1 % failed with a handful of error codes,
 * some skipped), then the median over 20 requests of the pages an operator opens, each
 * through the Hono app's `fetch` with the whole body read. Target ≤ 100 ms each for the run
 * page and a filtered results page. Then the live update: the server time of each
 * server-sent event while a 20,000-intent run is being written at an engine's pace.
 *
 *   npx tsx test/bench/dashboard.ts [--results 100000] [--adapter postgres|embedded] [--live 20000]
 *
 * PostgreSQL: DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test, in a scratch schema.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createDashboardApp } from '../../src/dashboard/dashboard-app.js';
import { LiveRuns } from '../../src/dashboard/live-progress.js';
import { RunActions } from '../../src/dashboard/run-actions.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { createLogger } from '../../src/log/logger.js';
import type { IntentKind } from '../../src/model/intent.js';
import type { PlannedIntent } from '../../src/model/planned-intent.js';
import type { IntentResultInput, ResultAction } from '../../src/model/result-records.js';
import { machineLoad } from './sync-bench-support.js';

const TARGET_MS = 100;
const REPEAT = 20;
const TOKEN = 'bench-token';

const { values } = parseArgs({
  options: {
    results: { type: 'string', default: '100000' },
    adapter: { type: 'string', default: 'postgres' },
    live: { type: 'string', default: '20000' },
  },
});
const total = Number(values.results);
const liveTotal = Number(values.live);
const pgUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const FAILURES = [
  ['EVSYNC_PLATFORM_INVALID', 'POST /user answered 422: user[svc_auth_attributes][email] is invalid'],
  ['EVSYNC_PLATFORM_INVALID', 'POST /event answered 422: event[exhibitor_client_id] names no exhibitor'],
  ['INVALID_EMAIL', 'email: "nope" is not an e-mail address'],
  ['EVSYNC_PLATFORM_UNREACHABLE', 'the platform did not answer after 5 attempts'],
] as const;

function kindOf(i: number): IntentKind {
  return i % 10 < 6 ? 'user' : i % 10 < 9 ? 'event' : 'speaker';
}

function keyOf(i: number): string {
  const kind = kindOf(i);
  return kind === 'speaker' ? `e${i}/u${i}` : `${kind[0]}${i}`;
}

function actionOf(i: number): ResultAction {
  // About 1 %, spread over the kinds.
  if (i % 97 === 5) return 'failed';
  if (i % 200 === 11) return 'skipped';
  return i % 5 === 0 ? 'updated' : i % 5 === 1 ? 'unchanged' : 'created';
}

function paramsOf(i: number): Record<string, string> {
  const kind = kindOf(i);
  if (kind === 'user') {
    return {
      client_id: keyOf(i),
      'user[first_name]': `First${i}`,
      'user[last_name]': `Last${i}`,
      'user[svc_auth_attributes][email]': `person${i}@example.org`,
      'user[company]': 'Example Corp',
    };
  }
  if (kind === 'event') {
    return {
      client_id: keyOf(i),
      'event[item_attributes][display_value]': `Session ${i}`,
      'event[start]': '2026-06-01T09:00:00Z',
      'event[finish]': '2026-06-01T10:00:00Z',
    };
  }
  return { event_client_id: `e${i}`, user_client_id: `u${i}` };
}

function planned(i: number): PlannedIntent {
  return {
    kind: kindOf(i),
    key: keyOf(i),
    op: 'upsert',
    plannedAction: 'create',
    params: paramsOf(i),
    origin: { source: `data/${kindOf(i)}s.csv`, row: i + 1, line: i + 2 },
    dependsOn: [],
    hash: `h${i}`,
  };
}

function result(runId: string, i: number): IntentResultInput {
  const action = actionOf(i);
  const failure = action === 'failed' ? FAILURES[i % FAILURES.length]! : undefined;
  return {
    runId,
    kind: kindOf(i),
    key: keyOf(i),
    action,
    origin: { source: `data/${kindOf(i)}s.csv`, row: i + 1, line: i + 2 },
    platformId: action === 'failed' || action === 'skipped' ? null : 100_000 + i,
    httpStatus: failure ? 422 : action === 'skipped' ? null : 200,
    errorCode: failure?.[0] ?? (action === 'skipped' ? 'EVSYNC_PARENT_MISSING' : null),
    errorMessage: failure?.[1] ?? (action === 'skipped' ? 'its user failed' : null),
    attempts: 1,
    durationMs: 15 + (i % 20),
    params: paramsOf(i),
    hash: `h${i}`,
  };
}

async function fill(ledger: Ledger, count: number): Promise<string> {
  const run = await ledger.createRun({
    jobName: 'bench-dashboard',
    mode: 'upsert',
    options: { planned: count },
  });
  for (let start = 0; start < count; start += 5000) {
    const ids = Array.from({ length: Math.min(5000, count - start) }, (_, j) => start + j);
    await ledger.recordPlannedIntents(run.id, ids.map(planned));
    await ledger.recordResults(ids.map((i) => result(run.id, i)));
  }
  await ledger.finishRun(run.id, 'completed');
  return run.id;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(ledger: Ledger, label: string): Promise<void> {
  const logger = createLogger({ level: 'silent' });
  const live = new LiveRuns();
  const app = createDashboardApp({
    ledger,
    token: TOKEN,
    logger,
    actions: new RunActions({ ledger, logger, live }),
    live,
    eventsIntervalMs: 250,
  });
  const filled = performance.now();
  const runId = await fill(ledger, total);
  console.log(
    `${label}: ${total.toLocaleString('en')} results recorded in ${((performance.now() - filled) / 1000).toFixed(1)} s`,
  );
  const middle = (await ledger.results(runId, { limit: 1, afterSeq: 0 }))[0]!.seq + Math.floor(total / 2);
  const timed = async (path: string, accept = 'text/html'): Promise<{ ms: number; bytes: number }> => {
    const started = performance.now();
    const response = await app.request(path, { headers: { authorization: `Bearer ${TOKEN}`, accept } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body.slice(0, 200)}`);
    return { ms: performance.now() - started, bytes: body.length };
  };
  const pages: Array<[string, string, string?]> = [
    ['run page (HTML)', `/runs/${runId}`],
    ['run (JSON)', `/runs/${runId}`, 'application/json'],
    ['results ?status=failed&kind=user', `/runs/${runId}/results?status=failed&kind=user`],
    [
      'results ?status=failed&kind=user (JSON)',
      `/runs/${runId}/results?status=failed&kind=user`,
      'application/json',
    ],
    ['results ?q=person54321@ (a hit)', `/runs/${runId}/results?q=person54321@`],
    ['results ?q=nobody-at-all (no hit: whole run)', `/runs/${runId}/results?q=nobody-at-all`],
    ['results ?after=<middle> (a deep page)', `/runs/${runId}/results?after=${middle}`],
    ['row page', `/runs/${runId}/results/user/u50000`],
    ['timeline (chart data)', `/runs/${runId}/timeline`, 'application/json'],
    ['runs list', '/runs'],
  ];
  // The first look at a finished run reads all its results; later ones reuse what it read.
  const cold = await timed(`/runs/${runId}`);
  console.log(`  run page (HTML), first request (cold)           ${cold.ms.toFixed(1).padStart(6)} ms`);
  for (const [name, path, accept] of pages) {
    for (let i = 0; i < 3; i += 1) await timed(path, accept);
    const samples: number[] = [];
    let bytes = 0;
    for (let i = 0; i < REPEAT; i += 1) {
      const sample = await timed(path, accept);
      samples.push(sample.ms);
      bytes = sample.bytes;
    }
    const ms = median(samples);
    const verdict =
      name.startsWith('run page') || name.startsWith('results ?status')
        ? ` (target ≤ ${TARGET_MS} ms: ${ms <= TARGET_MS ? 'met' : 'MISSED'})`
        : '';
    console.log(
      `  ${name.padEnd(46)} median ${ms.toFixed(1).padStart(6)} ms over ${REPEAT}, ${(bytes / 1024).toFixed(0)} KiB${verdict}`,
    );
  }
  // A text search answers a window at a time: the whole search, request after request.
  for (const q of ['person54321@', 'nobody-at-all']) {
    const times: number[] = [];
    for (let repeat = 0; repeat < 5; repeat += 1) {
      let after: number | null = 0;
      let requests = 0;
      let found = 0;
      const started = performance.now();
      while (after !== null && found === 0) {
        const response = await app.request(`/runs/${runId}/results?q=${q}${after ? `&after=${after}` : ''}`, {
          headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
        });
        const page = (await response.json()) as { results: unknown[]; next: number | null };
        found = page.results.length;
        after = page.next;
        requests += 1;
      }
      times.push(performance.now() - started);
      if (repeat === 4)
        console.log(
          `  whole search ?q=${q.padEnd(14)} until ${found ? 'its match' : 'the end'}: ${requests} requests, median ${median(times).toFixed(0)} ms in all`,
        );
    }
  }
  await measureLive(ledger, app);
}

/** Event server times while a run of `liveTotal` intents is written at about 2,000 results/s. */
async function measureLive(ledger: Ledger, app: ReturnType<typeof createDashboardApp>): Promise<void> {
  const run = await ledger.createRun({
    jobName: 'bench-dashboard-live',
    mode: 'upsert',
    options: { planned: liveTotal },
  });
  await ledger.recordPlannedIntents(
    run.id,
    Array.from({ length: liveTotal }, (_, i) => planned(i)),
  );
  const writing = (async () => {
    const writer = ledger.resultWriter();
    const started = performance.now();
    for (let i = 0; i < liveTotal; i += 1) {
      await writer.write(result(run.id, i));
      // An engine's pace: about 2,000 intents a second.
      if (i % 200 === 199) {
        const due = ((i + 1) / 2000) * 1000 - (performance.now() - started);
        if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
      }
    }
    await writer.close();
    await ledger.finishRun(run.id, 'completed');
  })();
  const response = await app.request(`/runs/${run.id}/events`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const serverMs: number[] = [];
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    for (const match of buffered.matchAll(/^data: (.+)$/gm)) {
      const event = JSON.parse(match[1]!) as { serverMs: number; status: string };
      serverMs.push(event.serverMs);
    }
    buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
  }
  await writing;
  console.log(
    `  live events during a ${liveTotal.toLocaleString('en')}-intent run (~2,000 results/s written): ` +
      `${serverMs.length} events, server time median ${median(serverMs).toFixed(1)} ms, max ${Math.max(...serverMs).toFixed(1)} ms`,
  );
}

console.log(`dashboard: ${machineLoad()}`);
if (values.adapter === 'embedded') {
  const dataDir = await mkdtemp(join(tmpdir(), 'evsync-bench-dashboard-'));
  const ledger = await openLedger({ dataDir, databaseUrl: '' });
  try {
    await measure(ledger, 'embedded (PGlite)');
  } finally {
    await ledger.close();
    await rm(dataDir, { recursive: true, force: true });
  }
} else {
  const schema = `evsync_bench_${randomBytes(4).toString('hex')}`;
  const ledger = await openLedger({ databaseUrl: pgUrl, schema });
  try {
    await measure(ledger, 'PostgreSQL');
  } finally {
    await ledger.close();
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}
