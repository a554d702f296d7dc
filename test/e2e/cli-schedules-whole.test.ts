import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWorkspace, runBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { startDistributedEnv, type DistributedEnv } from '../helpers/distributed-env.js';
import { serviceAvailable } from '../helpers/services.js';

// Issue #26, items 2 and 3, through the built CLI as a user runs it: a session deleted by
// mirror mode leaves the schedules that still list it sent with their other events and a
// warning naming the deleting run; attendees a `when:` condition filters out (refunds) make
// their schedules skipped on purpose, not a failure; a schedule naming a user in no source
// still ends the run with exit code 1. `plan` and `run` agree on every count. The same job
// runs inline (embedded ledger) and in distributed mode (PostgreSQL, Redis, `evsync worker`).

const USERS_MAPPING = `version: 1
description: attendees; refunded tickets are left out on purpose
intents:
  - kind: user
    when: { column: status, not_in: [Refunded], reason: refunded ticket }
    params: { client_id: client_id, email: email, first_name: first, last_name: last }
`;
const JOB = `name: agenda
mode: mirror
delete_threshold: 100%
rate: { per_second: 500, concurrency: 4 }
steps:
  - { mapping: ./users-map.yaml, source: { csv: ./users.csv } }
  - { mapping: events, source: { csv: ./events.csv } }
  - { mapping: schedules, source: { csv: ./schedules.csv } }
`;
const USERS = `client_id,email,first,last,status
w1,w1@example.org,Ann,One,Paid
w2,w2@example.org,Bob,Two,Paid
w3,w3@example.org,Cid,Three,Refunded
`;
const events = (ids: readonly number[]): string =>
  [
    'client_id,name,description,start,finish',
    ...ids.map((n) => `ws${n},Session ${n},About ${n},2026-06-01T0${n}:00:00Z,2026-06-01T0${n}:45:00Z`),
    '',
  ].join('\n');
const schedules = (pairs: ReadonlyArray<readonly [string, number]>): string =>
  ['user_client_id,event_client_id', ...pairs.map(([user, n]) => `${user},ws${n}`), ''].join('\n');

type Table = Record<string, Record<string, number>>;

/** The counts table `plan` or `run` prints, by kind and column; `total` left out. */
function table(output: string): Table {
  const lines = output.split('\n');
  const at = lines.findIndex((line) => /^kind\s/.test(line));
  const header = lines[at]!.trim().split(/\s+/);
  const out: Table = {};
  for (const line of lines.slice(at + 1)) {
    if (line.trim() === '') break;
    const [kind, ...cells] = line.trim().split(/\s+/);
    if (kind === undefined || /^-+$/.test(kind) || kind === 'total') continue;
    out[kind] = Object.fromEntries(
      cells.map((cell, i) => [header[i + 1]!, Number(cell)] as const).filter(([, n]) => n > 0),
    );
  }
  return out;
}

/** The plan's columns as the run names its actions. */
function asRun(plan: Table): Table {
  const names: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted' };
  return Object.fromEntries(
    Object.entries(plan).map(([kind, row]) => [
      kind,
      Object.fromEntries(Object.entries(row).map(([column, n]) => [names[column] ?? column, n])),
    ]),
  );
}

interface Setup {
  cli(args: string[]): Promise<{ code: number | null; output: string }>;
  write(files: Record<string, string>): void;
  close(): Promise<void>;
}

async function inline(): Promise<Setup> {
  const workspace: CliWorkspace = cliWorkspace('evsync-sched-whole-');
  const sandbox = await workspace.sandbox();
  const env = workspace.envFor(sandbox);
  return {
    cli: async (args) => {
      const result = await runBuiltCli(args, { cwd: workspace.dir, env });
      return { code: result.code, output: result.stdout + result.stderr };
    },
    write: (files) => workspace.write(files),
    close: () => workspace.close(),
  };
}

async function distributed(): Promise<Setup> {
  const env: DistributedEnv = await startDistributedEnv();
  env.startWorker(4);
  return {
    cli: (args) => env.cli(args, { LOG_LEVEL: 'warn' }),
    write: (files) => env.write(files),
    close: () => env.close(),
  };
}

const distributedReady = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));
const setups = [
  { name: 'inline', start: inline, ready: true },
  { name: 'distributed', start: distributed, ready: distributedReady },
];

describe.each(setups)('schedules stay whole, meant skips are no failure ($name)', ({ start, ready }) => {
  let setup: Setup | undefined;
  beforeAll(async () => {
    if (ready) setup = await start();
  }, 120_000);
  afterAll(async () => setup?.close(), 60_000);

  /** `plan` then `run` of the job: their counts must agree. */
  const planAndRun = async (): Promise<{ code: number | null; output: string; runId: string }> => {
    const plan = await setup!.cli(['plan', 'job.yaml']);
    expect(plan.code, plan.output).toBe(0);
    const run = await setup!.cli(['run', 'job.yaml']);
    expect(table(run.output)).toEqual(asRun(table(plan.output)));
    const skipped = /^Skipped: .*$/m.exec(run.output)?.[0];
    expect(skipped).toBe(/^Skipped: .*$/m.exec(plan.output)?.[0]);
    const runId = /Run (\d{8}-\d{6}-[0-9a-f]+)/.exec(run.output)?.[1] ?? '';
    return { ...run, runId };
  };
  const report = async (runId: string): Promise<Array<Record<string, string | null>>> =>
    JSON.parse((await setup!.cli(['report', runId, '--format', 'json'])).output) as Array<
      Record<string, string | null>
    >;
  const resultOf = (rows: Array<Record<string, string | null>>, kind: string, key: string) =>
    rows.find((row) => row.kind === kind && row.key === key);

  it('sends schedules without a deleted session, naming the run that deleted it; refunds are skipped on purpose', async (context) => {
    if (!setup) return context.skip();
    setup.write({
      'users-map.yaml': USERS_MAPPING,
      'job.yaml': JOB,
      'users.csv': USERS,
      'events.csv': events([1, 2, 3]),
      'schedules.csv': schedules([
        ['w1', 1],
        ['w1', 2],
        ['w2', 2],
        ['w3', 1],
      ]),
    });
    // The refunded attendee's row and schedule are meant to be left out: exit 0.
    const first = await planAndRun();
    expect(first.code, first.output).toBe(0);
    expect(table(first.output).schedule).toEqual({ created: 2, skipped: 1 });
    expect(first.output).toMatch(/^Skipped: 2 on purpose .*, 0 lost for missing data\.$/m);
    expect(resultOf(await report(first.runId), 'schedule', 'w3')).toMatchObject({
      action: 'skipped',
      error_code: 'EVSYNC_PARENT_SKIPPED',
      message: expect.stringMatching(/user "w3" was filtered out on purpose in this run \(refunded ticket/),
    });

    // Session 1 is cancelled: mirror mode deletes it.
    setup.write({ 'events.csv': events([2, 3]) });
    const deleting = await setup.cli(['run', 'job.yaml']);
    expect(table(deleting.output).event).toEqual({ unchanged: 2, deleted: 1 });
    const deletedBy = /Run (\d{8}-\d{6}-[0-9a-f]+)/.exec(deleting.output)?.[1];

    // Both attendees who still list it pick another session; one row names a user in no source.
    const picks: Array<[string, number]> = [
      ['w1', 1],
      ['w1', 2],
      ['w1', 3],
      ['w2', 1],
      ['w2', 3],
      ['w3', 1],
    ];
    setup.write({ 'schedules.csv': schedules([...picks, ['ghost', 2]]) });
    const third = await planAndRun();
    expect(table(third.output).schedule).toEqual({ updated: 2, skipped: 2 });
    // The schedule of a user in no source is data lost: exit code 1.
    expect(third.code, third.output).toBe(1);
    expect(third.output).toMatch(/^Skipped: 2 on purpose .*, 1 lost for missing data\.$/m);
    expect(third.output).toMatch(/^2 schedules were sent without some of their events/m);
    const rows = await report(third.runId);
    const day = new Date().toISOString().slice(0, 10);
    for (const user of ['w1', 'w2']) {
      const result = resultOf(rows, 'schedule', user);
      expect(result).toMatchObject({ action: 'updated', error_code: 'EVSYNC_SCHEDULE_PICKS_LEFT_OUT' });
      expect(result?.message).toContain(`event "ws1" was deleted by run ${deletedBy} on ${day}`);
      expect(result?.message).not.toMatch(/never synced|unknown/);
    }
    expect(resultOf(rows, 'schedule', 'ghost')).toMatchObject({
      action: 'skipped',
      error_code: 'EVSYNC_PARENT_MISSING',
    });

    // Without the unknown user, the nightly run is healthy: exit 0, and the schedules sent
    // without the deleted session are not sent again while it stays gone (issue #40 item 8:
    // they used to go again on every run).
    setup.write({ 'schedules.csv': schedules(picks) });
    const nightly = await setup.cli(['run', 'job.yaml']);
    expect(nightly.code, nightly.output).toBe(0);
    expect(table(nightly.output).schedule).toEqual({ unchanged: 2, skipped: 1 });
  }, 120_000);
});
