import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, runBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { conferenceVars, platformBlock } from '../helpers/sandbox-process.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';
import { jobYaml, people, usersCsv } from '../helpers/users-csv.js';

// One ledger, several conferences (docs/ledger.md, "Conferences"): two jobs with the same
// client_ids against two sandboxes, then one of them moved to a third and back. The built
// CLI, as users run it; an embedded ledger, and a shared PostgreSQL one.
const postgresUp = await serviceAvailable('postgres');
const USERS = 12;

/** A trailing slash on the URL: the run's conference is the same as without. */
function conferenceEnv(prefix: string, sandbox: RunningSandbox): NodeJS.ProcessEnv {
  return conferenceVars(prefix, { ...sandbox, url: `${sandbox.url}/` });
}

const usersOn = (sandbox: RunningSandbox): number =>
  sandbox.state.conferenceUsers().filter((user) => user.email.startsWith('cf')).length;
const writes = (sandbox: RunningSandbox): number => {
  const { calls } = sandbox.counters.snapshot();
  return Object.entries(calls)
    .filter(([call]) => !call.startsWith('GET '))
    .reduce((sum, [, n]) => sum + n, 0);
};

function describeLedger(name: string, ledgerEnv: () => NodeJS.ProcessEnv): void {
  describe(`one ${name} ledger, many conferences`, () => {
    let ws: CliWorkspace;
    let a: RunningSandbox;
    let b: RunningSandbox;
    let c: RunningSandbox;
    let env: NodeJS.ProcessEnv;
    const evsync = (...args: string[]) => runBuiltCli(args, { cwd: ws.dir, env });

    beforeAll(async () => {
      ws = cliWorkspace('evsync-conferences-');
      [a, b, c] = await Promise.all([ws.sandbox(), ws.sandbox(), ws.sandbox()]);
      const step = '  - { mapping: users, source: { csv: ./users.csv } }\n';
      ws.write({
        'users.csv': usersCsv(people(USERS, 'cf')),
        'conf-a.yaml': jobYaml('conf-a', step, platformBlock('CONF_A')),
        'conf-b.yaml': jobYaml('conf-b', step, platformBlock('CONF_B')),
      });
      env = {
        ...ledgerEnv(),
        EVSYNC_DATA_DIR: join(ws.dir, 'data'),
        ...conferenceEnv('CONF_A', a),
        ...conferenceEnv('CONF_B', b),
      };
    }, 60_000);
    afterAll(() => ws.close());

    it('two conferences with the same client_ids each get every row', async () => {
      expect((await evsync('run', 'conf-a.yaml')).code).toBe(0);
      const second = await evsync('run', 'conf-b.yaml');
      expect(second.code, second.stderr).toBe(0);
      expect(usersOn(a)).toBe(USERS);
      expect(usersOn(b)).toBe(USERS);
    }, 120_000);

    it('a second run of each sends nothing', async () => {
      const [beforeA, beforeB] = [writes(a), writes(b)];
      expect((await evsync('run', 'conf-a.yaml')).code).toBe(0);
      expect((await evsync('run', 'conf-b.yaml')).code).toBe(0);
      expect([writes(a), writes(b)]).toEqual([beforeA, beforeB]);
    }, 120_000);

    it('the job moved to a new conference sends it everything; moved back, nothing', async () => {
      const moved = { ...env, ...conferenceEnv('CONF_A', c) };
      const toC = await runBuiltCli(['run', 'conf-a.yaml'], { cwd: ws.dir, env: moved });
      expect(toC.code, toC.stderr).toBe(0);
      expect(usersOn(c)).toBe(USERS);
      expect(c.counters.duplicates()).toEqual({});
      const beforeA = writes(a);
      expect((await evsync('run', 'conf-a.yaml')).code).toBe(0);
      expect(writes(a)).toBe(beforeA);
    }, 120_000);

    it('runs, report and status name each run’s conference by its host, never its key', async () => {
      const runs = await evsync('runs', '--json');
      expect(runs.code).toBe(0);
      const listed = JSON.parse(runs.stdout) as Array<{
        id: string;
        jobName: string;
        conference: string | null;
      }>;
      const hostOf = (sandbox: RunningSandbox) => new URL(sandbox.url).host;
      expect(new Set(listed.map((run) => run.conference))).toEqual(
        new Set([hostOf(a), hostOf(b), hostOf(c)]),
      );
      const table = await evsync('runs');
      expect(table.stdout).toContain(hostOf(c));
      for (const sandbox of [a, b, c])
        expect(`${runs.stdout}${table.stdout}`).not.toContain(sandbox.signingKey);
      const report = await evsync('report', listed[0]!.id, '--format', 'json');
      expect(report.code).toBe(0);
      expect(report.stdout).toContain(hostOf(a));
    }, 120_000);

    it('a resume pointed at another conference than its run’s is refused', async () => {
      const listed = JSON.parse((await evsync('runs', '--json')).stdout) as Array<{
        id: string;
        conference: string;
      }>;
      const ofC = listed.find((run) => run.conference === new URL(c.url).host)!;
      const elsewhere = await runBuiltCli(['resume', ofC.id], {
        cwd: ws.dir,
        env: { ...env, ...conferenceEnv('CONF_A', b) },
      });
      expect(elsewhere.code).toBe(2);
      expect(elsewhere.stderr).toMatch(/wrote to .+, but this evsync points at .+: nothing was sent/);
    }, 120_000);

    it('a job without a conference and without EVSYNC_BASE_URL is refused (exit 2)', async () => {
      ws.write({ 'bare.yaml': jobYaml('bare', '  - { mapping: users, source: { csv: ./users.csv } }\n') });
      const bare = await evsync('run', 'bare.yaml');
      expect(bare.code).toBe(2);
      expect(bare.stderr).toContain('EVSYNC_BASE_URL');
      // A plan sends nothing: without a conference it is a first run's, and says so.
      const plan = await evsync('plan', 'bare.yaml');
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stderr).toContain('EVSYNC_BASE_URL is not set, so this plan compares with nothing synced');
      expect(plan.stdout).toMatch(/user +12 +0 +0 +0/);
    }, 60_000);
  });
}

describeLedger('embedded', () => ({}));

describe.runIf(postgresUp)('PostgreSQL', () => {
  const schema = `evsync_conf_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVICES.postgres.url });
  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });
  describeLedger('PostgreSQL', () => ({
    DATABASE_URL: `${SERVICES.postgres.url}?options=-c%20search_path%3D${schema}`,
  }));
});
