import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';
import { stubCliEnv } from './cli-in-process.js';
import { jobYaml, people, usersCsv } from './sync-harness.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const mariadbUp = await serviceAvailable('mariadb');
const USERS = 300;
/** The row (1-based, after the header) whose last name holds a NUL byte. */
const BAD_ROW = 150;
const NUL_MESSAGE =
  /NUL character \(U\+0000\) at character 4, which cannot be sent or stored: remove it from the source/;

// A NUL byte in one cell used to pass `validate`, then abort every run (exit 3) when the
// plan chunk holding the row was written to the ledger, which PostgreSQL text refuses.
describe('a NUL byte in one row is that row’s problem, not the run’s', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-nul-'));
    sandbox = await startSandbox();
    stubCliEnv(sandbox, join(dir, 'data'));
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await sandbox.close();
    await removeWorkspace(dir);
  });

  /** validate, run and a second run of a job whose row 150 carries the NUL. */
  async function expectRowReported(jobFile: string, origin: RegExp): Promise<void> {
    const validated = await runCli('validate', jobFile, '--report', join(dir, 'validate.json'));
    expect(validated.code).toBe(1);
    const invalid = JSON.parse(readFileSync(join(dir, 'validate.json'), 'utf8')) as unknown;
    expect(JSON.stringify(invalid)).toMatch(NUL_MESSAGE);

    const run = await runCli('run', jobFile, '--report', join(dir, 'run.json'));
    expect(run.stderr).not.toMatch(/cannot be converted|aborted/);
    expect(run.code).toBe(1);
    expect(sandbox.state.conferenceUsers()).toHaveLength(USERS - 1);
    const results = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Array<{
      status?: string;
      action?: string;
      message?: string;
      source?: string;
      row?: number;
    }>;
    const failed = results.filter((r) => JSON.stringify(r).includes('failed'));
    expect(failed).toHaveLength(1);
    expect(JSON.stringify(failed[0])).toMatch(NUL_MESSAGE);
    expect(JSON.stringify(failed[0])).toMatch(origin);

    // The next run is no different: the row fails again, the rest is unchanged.
    const again = await runCli('run', jobFile);
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(new RegExp(`^user +0 +0 +0 +${USERS - 1} +0 +0 +1$`, 'm'));
  }

  it('in a CSV cell: validate and run report row 150, the other 299 users are sent', async () => {
    const rows = people(USERS, 'n');
    rows[BAD_ROW - 1] = { ...rows[BAD_ROW - 1]!, last: 'Mül\u0000ler' };
    writeFileSync(join(dir, 'users.csv'), usersCsv(rows));
    writeFileSync(
      join(dir, 'job.yaml'),
      jobYaml('nul-csv', '  - { mapping: users, source: { csv: ./users.csv } }\n'),
    );
    await expectRowReported(join(dir, 'job.yaml'), new RegExp(`"row":${BAD_ROW}`));
  }, 120_000);

  it.runIf(mariadbUp)(
    'in a MySQL column (PostgreSQL text cannot hold one, MySQL text can)',
    async () => {
      const table = `evsync_nul_${randomBytes(4).toString('hex')}`;
      const admin = await mysql.createConnection(SERVICES.mariadb.url);
      try {
        await admin.query(
          `CREATE TABLE ${table} (n INT PRIMARY KEY, client_id VARCHAR(20), email VARCHAR(100), first_name VARCHAR(50), last_name VARCHAR(50))`,
        );
        const rows = people(USERS, 'm').map((p, i) => [
          i + 1,
          p.id,
          p.email,
          p.first,
          i + 1 === BAD_ROW ? 'Mül\u0000ler' : p.last,
        ]);
        await admin.query(`INSERT INTO ${table} VALUES ?`, [rows]);
        vi.stubEnv('NUL_SOURCE_URL', SERVICES.mariadb.url);
        writeFileSync(
          join(dir, 'job.yaml'),
          jobYaml(
            'nul-mysql',
            `  - { mapping: users, source: { mysql: { url_env: NUL_SOURCE_URL, name: people, query: "select client_id, email, first_name, last_name from ${table} order by n" } } }\n`,
          ),
        );
        await expectRowReported(join(dir, 'job.yaml'), new RegExp(`"row":${BAD_ROW}`));
      } finally {
        await admin.query(`DROP TABLE IF EXISTS ${table}`);
        await admin.end();
      }
    },
    120_000,
  );
});
