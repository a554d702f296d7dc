import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/ledger/migrate.js';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { openPgliteClient } from '../../../src/ledger/pglite-client.js';
import { SqlLedger } from '../../../src/ledger/sql-ledger.js';
import type { SqlClient } from '../../../src/ledger/sql-client.js';
import { removeWorkspace } from '../../helpers/remove-workspace.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeWorkspace(dir);
});

/** Every row of every table, in a stable order: what must come through the takeover. */
async function everything(client: SqlClient): Promise<Record<string, unknown[]>> {
  const tables = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
        AND table_name NOT IN ('evsync_schema_version', 'evsync_pglite_takeover') ORDER BY 1`,
  );
  const rows: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    rows[name] = (
      await client.query<{ row: string }>(`SELECT to_jsonb(t)::text AS row FROM "${name}" t ORDER BY 1`)
    ).map((r) => r.row);
  }
  return rows;
}

// A `.evsync` of the release before the shared embedded ledger: a PGlite 0.3.8 cluster in
// `.evsync/ledger`, written through the same SqlLedger (docs/ledger.md, "Upgrade").
describe('the takeover of a PGlite ledger of the earlier release', () => {
  it(
    'copies every row once, says so once, and keeps the old folder aside',
    { timeout: 180_000 },
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'evsync-takeover-'));
      dirs.push(dataDir);

      const legacy = await openPgliteClient(dataDir);
      await migrate(legacy.client);
      const old = new SqlLedger(legacy.client, 'embedded', 'the old ledger');
      const conference = await old.conferenceFor('https://conf.example.org', 1);
      const scoped = old.forConference(conference);
      const run = await scoped.createRun({ jobName: 'nightly', mode: 'upsert' });
      await scoped.recordPlannedIntents(run.id, [
        {
          kind: 'user',
          key: 'u1',
          op: 'upsert',
          plannedAction: 'create',
          params: { 'user[first_name]': 'Ada' },
          origin: { source: 'users.csv', row: 1, line: 2 },
          dependsOn: [],
          hash: 'h1',
        },
        {
          kind: 'user',
          key: 'u2',
          op: 'upsert',
          plannedAction: 'create',
          params: { 'user[first_name]': 'Bo' },
          origin: { source: 'users.csv', row: 2, line: 3 },
          dependsOn: [],
          hash: 'h2',
        },
      ]);
      await scoped.recordResults([
        { runId: run.id, kind: 'user', key: 'u1', action: 'created', platformId: 41, hash: 'h1' },
        {
          runId: run.id,
          kind: 'user',
          key: 'u2',
          action: 'failed',
          errorCode: 'EVSYNC_PLATFORM_VALIDATION',
          errorMessage: 'email taken',
        },
      ]);
      await scoped.recordUnchanged(run.id, [{ kind: 'user', key: 'u0' }]);
      await scoped.finishRun(run.id, 'completed');
      await scoped.notices().saveSettings('nightly', { email: { to: ['ops@example.org'] } });
      const ledgerId = await old.ledgerId();
      const before = await everything(legacy.client);
      await legacy.client.close();

      const told: string[] = [];
      const ledger = await openLedger({ dataDir, databaseUrl: '', notify: (message) => told.push(message) });
      try {
        expect(told).toHaveLength(1);
        expect(told[0]).toMatch(/took over the embedded ledger of the earlier release \(1 runs, \d+ rows\)/);
        expect(existsSync(join(dataDir, 'ledger'))).toBe(false);
        expect(existsSync(join(dataDir, 'ledger.before-upgrade', 'PG_VERSION'))).toBe(true);
        expect(await ledger.ledgerId()).toBe(ledgerId);
        const after = ledger.forConference(conference);
        expect((await after.getRun(run.id))?.status).toBe('completed');
        expect((await after.results(run.id)).map((r) => [r.key, r.action])).toEqual([
          ['u1', 'created'],
          ['u2', 'failed'],
          ['u0', 'unchanged'],
        ]);
        expect(await after.loadHashes('user')).toEqual(new Map([['u1', 'h1']]));
        expect(await after.getPlatformId('user', 'u1')).toBe(41);
        // Sequences go on after the copied rows.
        const next = await after.createRun({ jobName: 'nightly', mode: 'upsert' });
        expect(next.seq).toBeGreaterThan(run.seq);
      } finally {
        await ledger.close();
      }

      const again = await openLedger({ dataDir, databaseUrl: '', notify: (message) => told.push(message) });
      try {
        expect(told).toHaveLength(1);
        const { openPgClient } = await import('../../../src/ledger/pg-client.js');
        const { ensureEmbeddedServer } = await import('../../../src/ledger/embedded-server.js');
        const client = await openPgClient({ databaseUrl: (await ensureEmbeddedServer(dataDir)).url });
        try {
          const copied = await everything(client);
          for (const [table, rows] of Object.entries(before)) {
            if (table === 'runs') continue; // one run more since
            expect(copied[table], table).toEqual(rows);
          }
        } finally {
          await client.close();
        }
      } finally {
        await again.close();
      }
    },
  );
});
