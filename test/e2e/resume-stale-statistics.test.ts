import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, spawnBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { postgresSchema, serviceAvailable, SERVICES } from '../helpers/services.js';
import { jobYaml, people, usersCsv } from '../helpers/users-csv.js';

const USERS = 8_000;
/** Every user and half of the contacts answered: the whole plan is recorded by then. */
const KILL_AT = USERS + USERS / 2;

const available = await serviceAvailable('postgres');

/**
 * Issue #41 item 3: a resume on a PostgreSQL ledger whose statistics predate the run, as
 * autovacuum leaves a ledger with history. The planner took the run's results as one row and
 * scanned them all for each pending intent (a 40,000-user resume took 735 s, 5 s after
 * ANALYZE); the pending reads probe each intent's result instead, whatever the statistics.
 */
describe.skipIf(!available)('resume on PostgreSQL with statistics from before the run', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let database: Awaited<ReturnType<typeof postgresSchema>>;
  beforeAll(async () => {
    workspace = cliWorkspace('evsync-resume-stale-');
    sandbox = await workspace.sandbox();
    database = await postgresSchema('evsync_stale');
  });
  afterAll(async () => {
    await workspace?.close();
    await database?.drop();
  });

  it(`resumes a run of ${(2 * USERS).toLocaleString('en')} intents killed at ${KILL_AT.toLocaleString('en')} calls in seconds`, async () => {
    const env = { ...database.env, EVSYNC_LOG_LEVEL: 'warn' };
    workspace.write({
      'history.csv': usersCsv(people(10, 'h')),
      'users.csv': usersCsv(people(USERS, 'st')),
      'history.yaml': jobYaml('stale', '  - { mapping: users, source: { csv: ./history.csv } }\n'),
      'job.yaml': jobYaml(
        'stale',
        '  - { mapping: users, source: { csv: ./users.csv } }\n' +
          '  - { mapping: ./contacts.yaml, source: { csv: ./users.csv } }\n',
      ),
    });
    // A ledger with history, analysed, whose statistics then stay as they are.
    expect((await workspace.run(sandbox, ['run', 'history.yaml'], env)).code).toBe(0);
    await ageStatistics(database.schema);
    // Each user gets a contact: the first user of the history.
    const contact = sandbox.state.userByClientId('h1')!.id;
    workspace.write({
      'contacts.yaml':
        'version: 1\nintents:\n  - kind: contact\n    params:\n      user_client_id: client_id\n' +
        `      contact_user_id: { column: first_contact, transforms: [{ default: '${contact}' }] }\n`,
    });

    const child = spawnBuiltCli(['run', 'job.yaml'], {
      cwd: workspace.dir,
      env: { ...workspace.envFor(sandbox), ...env },
    });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((done) =>
      child.once('exit', (_code, signal) => done(signal)),
    );
    while (sandbox.counters.snapshot().total < KILL_AT + 10)
      await new Promise((wait) => setTimeout(wait, 10));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const runId = /Run (\S+) /.exec(stdout)?.[1] ?? (await lastRunId(env));

    const started = Date.now();
    const resumed = await workspace.run(sandbox, ['resume', runId], env);
    const seconds = (Date.now() - started) / 1000;
    console.log(`resume of ${runId} with statistics from before the run: ${seconds.toFixed(1)} s`);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`Run ${runId} .*completed`));
    expect(sandbox.counters.duplicates()).toEqual({});
    // The old reads scanned the run's 12,000 results for each of its 16,000 intents: minutes.
    expect(seconds).toBeLessThan(60);
  }, 240_000);

  async function lastRunId(env: NodeJS.ProcessEnv): Promise<string> {
    const runs = await workspace.run(sandbox, ['runs', '--json'], env);
    return (JSON.parse(runs.stdout) as Array<{ id: string }>)[0]!.id;
  }
});

/** ANALYZE the ledger now, and keep autovacuum from analysing it again during the test. */
async function ageStatistics(schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: SERVICES.postgres.url });
  await client.connect();
  try {
    for (const table of ['run_intents', 'intent_results']) {
      await client.query(`ANALYZE ${schema}.${table}`);
      await client.query(`ALTER TABLE ${schema}.${table} SET (autovacuum_enabled = false)`);
    }
  } finally {
    await client.end();
  }
}
