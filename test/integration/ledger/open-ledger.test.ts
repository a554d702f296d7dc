import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { openPgClient } from '../../../src/ledger/pg-client.js';
import { removeWorkspace } from '../../helpers/remove-workspace.js';
import { SERVICES, serviceAvailable } from '../../helpers/services.js';

const available = await serviceAvailable('postgres');
const schema = `evsync_open_${randomBytes(4).toString('hex')}`;
const dirs: string[] = [];

afterAll(async () => {
  // Each folder's embedded server is stopped first: one still writing its WAL made the
  // deletion fail (ENOTEMPTY) on a loaded machine.
  for (const dir of dirs) await removeWorkspace(dir);
  if (!available) return;
  const client = new pg.Client({ connectionString: SERVICES.postgres.url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

describe('openLedger', () => {
  it.skipIf(!available)(
    'opens PostgreSQL when the environment has DATABASE_URL, never showing its password',
    async () => {
      // Trust auth here: the password is accepted and ignored, and must not leak anywhere.
      const url = 'postgres://postgres:not-a-real-pw@127.0.0.1:5432/test';
      const ledger = await openLedger({ env: { DATABASE_URL: url }, schema });
      try {
        expect(ledger.kind).toBe('postgres');
        expect(ledger.description).toBe(`PostgreSQL ledger at 127.0.0.1:5432/test (schema ${schema})`);
        expect((await ledger.createRun({ jobName: 'open', mode: 'upsert' })).status).toBe('running');
      } finally {
        await ledger.close();
      }
    },
  );

  it('opens the embedded ledger in EVSYNC_DATA_DIR when the URL is forced empty', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'evsync-open-'));
    dirs.push(dataDir);
    const ledger = await openLedger({
      databaseUrl: '',
      env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', EVSYNC_DATA_DIR: dataDir },
    });
    try {
      expect(ledger.kind).toBe('embedded');
      expect(ledger.description).toBe(`embedded ledger in ${join(dataDir, 'postgres')}`);
      expect(await ledger.listRuns()).toEqual([]);
    } finally {
      await ledger.close();
    }
  });

  it('reports an unreachable server as retryable, without the password', async () => {
    const error: unknown = await openLedger({ databaseUrl: 'postgres://bob:hunter2@127.0.0.1:1/test' }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'EVSYNC_LEDGER_UNAVAILABLE', retryable: true });
    expect(String((error as Error).message)).toContain('DATABASE_URL');
    expect(JSON.stringify({ message: (error as Error).message })).not.toContain('hunter2');
  });

  it.skipIf(!available)(
    'says a connection lost under a statement as such, not as its bare socket error',
    async () => {
      const client = await openPgClient({ databaseUrl: SERVICES.postgres.url, poolSize: 1 });
      const admin = new pg.Client({ connectionString: SERVICES.postgres.url });
      await admin.connect();
      try {
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
        const sleeping = client.query('SELECT pg_sleep(30)').catch((error: unknown) => error);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        const error = await sleeping;
        expect(error).toMatchObject({ code: 'EVSYNC_LEDGER_UNAVAILABLE', retryable: true });
        expect((error as Error).message).toMatch(
          /^The connection to the PostgreSQL ledger \(DATABASE_URL\) was lost during a statement \(.+\); what the statement did may or may not be kept/,
        );
        // The pool goes on with a new connection.
        expect(await client.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      } finally {
        await admin.end();
        await client.close();
      }
    },
  );

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(
      openLedger({ databaseUrl: SERVICES.postgres.url, schema: 'x; drop table runs' }),
    ).rejects.toMatchObject({
      code: 'EVSYNC_LEDGER_SCHEMA',
    });
  });
});
