import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, runBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { startDistributedEnv } from '../helpers/distributed-env.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';

/**
 * The tool a newcomer meets (issue #30 item 7): `evsync init` writes a folder that works,
 * and `evsync doctor` says on one line per check what is wrong and how to fix it.
 */
describe('evsync init, then doctor, validate, plan and run in the new folder', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let folder: string;
  beforeAll(async () => {
    workspace = cliWorkspace('evsync-init-');
    sandbox = await workspace.sandbox();
    folder = join(workspace.dir, 'myconf');
  });
  afterAll(async () => workspace?.close());
  // In the folder, as a user who followed the printed steps: `.env` there is what is read.
  const inFolder = (...args: string[]) => runBuiltCli(args, { cwd: folder });

  it('writes a job, a .env, the mappings and samples, and says what to run next', async () => {
    const init = await runBuiltCli(['init', 'myconf', '--from', 'eventbrite,csv,sessionize'], {
      cwd: workspace.dir,
    });
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    for (const file of [
      'job.yaml',
      '.env',
      '.gitignore',
      'mappings/eventbrite.yaml',
      'mappings/users.yaml',
      'mappings/events.yaml',
      'mappings/sessionize.yaml',
      'mappings/mapping.schema.json',
      'data/eventbrite-attendees.csv',
      'data/users.csv',
      'data/sessionize.json',
      'data/speaker-emails.csv',
    ])
      expect(existsSync(join(folder, file)), file).toBe(true);
    expect(readFileSync(join(folder, 'job.yaml'), 'utf8')).toMatch(/^name: myconf$/m);
    // The speaker list's id column as Sessionize's speaker export names it (issue #40 item 10),
    // and its names: a row is matched by id only where the names agree too.
    const written = readFileSync(join(folder, 'job.yaml'), 'utf8');
    expect(written).toMatch(/^ {10}id: Speaker Id$/m);
    expect(written).toMatch(/^ {10}name: \[FirstName, LastName\]$/m);
    expect(readFileSync(join(folder, 'data/speaker-emails.csv'), 'utf8')).toMatch(/^Speaker Id,/);
    expect(init.stdout).toMatch(/^ {2}cd myconf$/m);
    expect(init.stdout).toMatch(/^ {2}evsync doctor job\.yaml/m);

    const again = await runBuiltCli(['init', 'myconf'], { cwd: workspace.dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already has job\.yaml.*--force/);
    const json = await runBuiltCli(['init', 'other', '--from', 'postgres', '--json'], { cwd: workspace.dir });
    expect(JSON.parse(json.stdout)).toMatchObject({
      sources: ['postgres'],
      files: expect.arrayContaining(['job.yaml', '.env', 'mappings/users.yaml']),
    });
    expect(readFileSync(join(workspace.dir, 'other', '.env'), 'utf8')).toMatch(/^SOURCE_DB_URL=$/m);
    // A folder with a space is one word of the shell in the next steps (issue #40 item 10).
    const spaced = await runBuiltCli(['init', 'other conf', '--from', 'csv'], { cwd: workspace.dir });
    expect(spaced.code, spaced.stderr).toBe(0);
    expect(spaced.stdout).toMatch(/^ {2}cd 'other conf'$/m);
    const unknown = await runBuiltCli(['init', 'x', '--from', 'excel'], { cwd: workspace.dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--from excel: name your sources among .*eventbrite/);
  });

  it('doctor fails, one line a check with its fix, until .env is filled in', async () => {
    const doctor = await inFolder('doctor');
    expect(doctor.code).toBe(2);
    const lines = doctor.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('ok    node'))).toMatch(/Node\.js \d+/);
    expect(lines.find((l) => l.startsWith('FAIL  platform'))).toMatch(/EVSYNC_BASE_URL.* → fill in/);
    // Every step points at a file init wrote (the Sessionize sample too, issue #40 item 10).
    expect(lines.find((l) => l.startsWith('ok    step sessionize'))).toMatch(
      /sessionize\.json → sessionize: 3 rows read/,
    );
    expect(lines.filter((l) => l.startsWith('FAIL'))).toHaveLength(1);
    expect(lines.find((l) => l.startsWith('ok    step tickets'))).toMatch(
      /eventbrite-attendees\.csv → eventbrite: 1 row read/,
    );
    expect(doctor.stdout).toMatch(/checks failed: fix them/);
  });

  it('passes once the sandbox’s credentials are pasted, and the job then validates, plans and runs', async () => {
    // The lines `evsync sandbox` prints, pasted under the template's.
    const pasted =
      `# evsync sandbox: a throwaway key that opens nothing real\n` +
      `EVSYNC_BASE_URL=${sandbox.url}\nEVSYNC_KEY_ID=${sandbox.keyId}\nEVSYNC_SIGNING_KEY=${sandbox.signingKey}\n`;
    const env = readFileSync(join(folder, '.env'), 'utf8').replace(/^EVSYNC_\w+=\n/gm, '');
    writeFileSync(join(folder, '.env'), `${env}${pasted}`);

    const doctor = await inFolder('doctor', 'job.yaml');
    expect(doctor.stdout).toMatch(/^ok {4}platform .* accepts the signature of key_id/m);
    expect(doctor.stdout).toMatch(/^ok {4}ledger .*embedded ledger/m);
    expect(doctor.code).toBe(0);
    expect((await inFolder('validate', 'job.yaml')).code).toBe(0);
    const plan = await inFolder('plan', 'job.yaml');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/create/);
    const run = await inFolder('run', 'job.yaml');
    expect(run.code).toBe(0);
    expect(sandbox.state.userByClientId('eb-2000001')).toBeDefined();
    expect(sandbox.state.userByClientId('example-1')).toBeDefined();
    // The Sessionize samples: the speaker, with the e-mail of the speaker list.
    expect(sandbox.state.userByClientId('sz-00000000-0000-0000-0000-000000000001')).toBeDefined();
  });

  it('never writes through a dangling job.yaml link, with or without --force (issue #41 item 12)', async () => {
    const linked = join(workspace.dir, 'linked');
    const elsewhere = join(workspace.dir, 'elsewhere.yaml');
    mkdirSync(linked);
    symlinkSync(elsewhere, join(linked, 'job.yaml'));
    const init = await runBuiltCli(['init', 'linked'], { cwd: workspace.dir });
    expect(init.code).toBe(2);
    expect(init.stderr).toMatch(/already has job\.yaml: nothing was written/);
    expect(existsSync(elsewhere)).toBe(false);
    const forced = await runBuiltCli(['init', 'linked', '--force'], { cwd: workspace.dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(existsSync(elsewhere)).toBe(false);
    expect(lstatSync(join(linked, 'job.yaml')).isFile()).toBe(true);
  });

  it('names a key with a comment pasted after it', async () => {
    const doctor = await runBuiltCli(['doctor'], {
      cwd: folder,
      env: { EVSYNC_SIGNING_KEY: `${sandbox.signingKey}   (a sandbox key)` },
    });
    expect(doctor.code).toBe(2);
    expect(doctor.stdout).toMatch(
      /^FAIL {2}platform .*rejected the signature.* → .*a comment pasted after it/m,
    );
  });
});

describe('evsync doctor in distributed mode', async () => {
  const available = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));
  it.skipIf(!available)('says that a registered schedule waits for a worker that is not there', async () => {
    const env = await startDistributedEnv();
    try {
      env.write({
        'nightly.csv': 'client_id,email,first_name,last_name\nn1,n1@example.org,Nia,One\n',
        'nightly.yaml':
          "name: nightly\nschedule: { cron: '0 2 * * *', tz: Europe/Berlin }\n" +
          'steps:\n  - { mapping: users, source: { csv: ./nightly.csv } }\n',
      });
      // Each query runs (read-only, as every query evsync runs): a wrong one fails its line.
      env.write({
        'db.yaml':
          'name: db\nsteps:\n' +
          "  - name: good\n    mapping: users\n    source: { postgres: { url_env: DATABASE_URL, query: \"select 'p1' as client_id, 'p1@example.org' as email, 'Pat' as first_name, 'One' as last_name\" } }\n" +
          '  - name: wrong\n    mapping: users\n    source: { postgres: { url_env: DATABASE_URL, query: "select * from no_such_table" } }\n',
      });
      const db = await env.cli(['doctor', 'db.yaml']);
      expect(db.output).toMatch(/^ok {4}step good .* → users: 1 row read/m);
      expect(db.output).toMatch(/^FAIL {2}step wrong .*no_such_table/m);
      expect(db.code).toBe(2);
      const before = await env.cli(['doctor', 'nightly.yaml']);
      expect(before.output).toMatch(/^ok {4}redis .* answers/m);
      expect(before.output).toMatch(/^warn {2}workers .*no evsync worker is connected: a run waits for one/m);
      expect(before.code).toBe(0);
      expect((await env.cli(['schedule', 'nightly.yaml'])).code).toBe(0);
      const listed = await env.cli(['schedule', '--list', '--json'], { LOG_LEVEL: 'silent' });
      expect(JSON.parse(listed.output)).toEqual([
        expect.objectContaining({ name: 'nightly', cron: '0 2 * * *', timezone: 'Europe/Berlin' }),
      ]);
      const after = await env.cli(['doctor', 'nightly.yaml']);
      expect(after.output).toMatch(
        /^FAIL {2}workers .*1 schedule\(s\) wait for one \(nightly\).* → start one/m,
      );
      expect(after.code).toBe(2);
    } finally {
      await env.close();
    }
  });
});

describe('evsync doctor on a query that never answers (issue #41 item 7)', async () => {
  const available = (await serviceAvailable('postgres')) && (await serviceAvailable('mariadb'));
  it.skipIf(!available)(
    'fails the step after --source-timeout, and no query keeps running',
    async () => {
      const workspace = cliWorkspace('evsync-doctor-sleep-');
      try {
        // A marker in each query, to find it on the servers afterwards.
        const marker = `evsync_sleep_${process.pid}_${Date.now()}`;
        workspace.write({
          'slow.yaml':
            'name: slow\nsteps:\n' +
            `  - name: pg\n    mapping: users\n    source: { postgres: { url_env: PG_URL, query: "select '${marker}' as client_id, pg_sleep(3600)::text as email" } }\n` +
            `  - name: maria\n    mapping: users\n    source: { mysql: { url_env: MY_URL, query: "select '${marker}' as client_id, sleep(3600) as email" } }\n`,
        });
        const started = Date.now();
        const doctor = await runBuiltCli(['doctor', 'slow.yaml', '--source-timeout', '2'], {
          cwd: workspace.dir,
          env: { PG_URL: SERVICES.postgres.url, MY_URL: SERVICES.mariadb.url },
        });
        expect(doctor.code).toBe(2);
        expect(doctor.stdout).toMatch(/^FAIL {2}step pg .*(statement timeout|no answer within 2 s)/m);
        expect(doctor.stdout).toMatch(
          /^FAIL {2}step maria .*(max_statement_time|interrupted|no answer within 2 s)/im,
        );
        expect(Date.now() - started).toBeLessThan(30_000);
        expect(await runningQueries(marker)).toEqual({ postgres: 0, mariadb: 0 });
      } finally {
        await workspace.close();
      }
    },
    60_000,
  );
});

/** The queries holding `marker` still running on each server (other than this look-up). */
async function runningQueries(marker: string): Promise<{ postgres: number; mariadb: number }> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: SERVICES.postgres.url });
  await client.connect();
  const pgRows = await client.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()",
    [marker],
  );
  await client.end();
  const mysql = await import('mysql2/promise');
  const connection = await mysql.createConnection(SERVICES.mariadb.url);
  const [myRows] = await connection.query(
    "SELECT count(*) AS n FROM information_schema.processlist WHERE info LIKE CONCAT('%', ?, '%') AND id <> connection_id()",
    [marker],
  );
  await connection.end();
  return {
    postgres: (pgRows.rows[0] as { n: number }).n,
    mariadb: Number((myRows as Array<{ n: number }>)[0]!.n),
  };
}
