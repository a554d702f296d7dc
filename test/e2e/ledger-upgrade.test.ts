import { randomBytes } from 'node:crypto';
import { cpSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, runBuiltCli, sandboxEnv, type CliWorkspace } from '../helpers/built-cli.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

// A PostgreSQL ledger left by evsync 0.1.0 before runs named their conference (two runs of
// a mirror job: users, sessions, speaker links, schedules; see the fixture's job.yaml),
// upgraded by the built CLI of today: its next run takes that state as its conference's
// and sends nothing it had already sent (docs/ledger.md, "Conferences").
const FIXTURE = resolve(import.meta.dirname, '../fixtures/ledgers/release-0.1.0');
const postgresUp = await serviceAvailable('postgres');

describe.runIf(postgresUp)('a ledger written by the release before conferences', () => {
  const schema = `evsync_upgrade_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVICES.postgres.url });
  let ws: CliWorkspace;
  let sandbox: RunningSandbox;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    await admin.connect();
    const dump = readFileSync(join(FIXTURE, 'ledger.sql'), 'utf8').replaceAll(
      'evsync_upgrade_fixture',
      schema,
    );
    await admin.query(dump);
    ws = cliWorkspace('evsync-upgrade-');
    cpSync(FIXTURE, ws.dir, { recursive: true });
    sandbox = await ws.sandbox();
    env = {
      ...sandboxEnv(sandbox),
      DATABASE_URL: `${SERVICES.postgres.url}?options=-c%20search_path%3D${schema}`,
    };
  }, 60_000);
  afterAll(async () => {
    await ws?.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('the next run sends nothing it had sent, says what it assumed, and names the conference', async () => {
    const before = await runBuiltCli(['runs', '--json'], { cwd: ws.dir, env });
    expect((JSON.parse(before.stdout) as unknown[]).length).toBe(2);

    const run = await runBuiltCli(['run', 'job.yaml'], { cwd: ws.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(sentBesidesChecks(sandbox.counters.snapshot())).toBe(0);
    expect(run.stdout).toMatch(/unchanged\s/);
    // Said once, in the log: the 2 runs and their state are taken as this conference's.
    expect(run.stderr).toContain('recorded before runs named their conference');
    expect(run.stderr).toContain(new URL(sandbox.url).host);

    const runs = JSON.parse((await runBuiltCli(['runs', '--json'], { cwd: ws.dir, env })).stdout) as Array<{
      conference: string | null;
    }>;
    expect(runs.map((r) => r.conference)).toEqual(Array(3).fill(new URL(sandbox.url).host));

    const again = await runBuiltCli(['run', 'job.yaml'], { cwd: ws.dir, env });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('recorded before runs named their conference');
    expect(sentBesidesChecks(sandbox.counters.snapshot())).toBe(0);
  }, 120_000);
});
