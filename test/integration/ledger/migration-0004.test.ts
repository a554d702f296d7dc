import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/ledger/migrate.js';
import { MIGRATIONS } from '../../../src/ledger/migrations/index.js';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { openPgClient } from '../../../src/ledger/pg-client.js';
import type { SqlClient } from '../../../src/ledger/sql-client.js';
import { SERVICES, serviceAvailable } from '../../helpers/services.js';

const databaseUrl = SERVICES.postgres.url;
const available = await serviceAvailable('postgres');
const schema = `evsync_m4_${randomBytes(5).toString('hex')}`;

// A ledger written by an evsync before migration 4, then upgraded.
describe.runIf(available)('migration 4 on a ledger of an earlier version', () => {
  let client: SqlClient;
  beforeAll(async () => {
    client = await openPgClient({ databaseUrl, schema });
    await migrate(
      client,
      MIGRATIONS.filter((m) => m.version <= 3),
    );
    // Two runs started in the same instant: only their ids order them.
    await client.execScript(`
INSERT INTO runs (id, job_name, mode, status, started_at) VALUES
  ('20261101-010000-bbbb', 'j', 'upsert', 'completed', '2026-11-01T01:00:00Z'),
  ('20261101-010000-aaaa', 'j', 'upsert', 'completed', '2026-11-01T01:00:00Z'),
  ('20261031-230000-ffff', 'j', 'upsert', 'completed', '2026-10-31T23:00:00Z');
INSERT INTO run_intents (run_id, kind, key, op, planned_action, params, redacted_params, hash) VALUES
  ('20261101-010000-aaaa', 'user', 'with-pw', 'upsert', 'create',
   '{"user[svc_auth_attributes][password]":"[redacted]"}', '["user[svc_auth_attributes][password]"]', 'plain-with-pw'),
  ('20261101-010000-aaaa', 'user', 'no-pw', 'upsert', 'create', '{"user[first_name]":"A"}', '[]', 'plain-no-pw');
INSERT INTO synced_hashes (kind, key, hash, run_id) VALUES
  ('user', 'with-pw', 'plain-with-pw', '20261101-010000-aaaa'),
  ('user', 'no-pw', 'plain-no-pw', '20261101-010000-aaaa');
`);
    await migrate(client);
  });
  afterAll(async () => {
    await client.close();
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('numbers the existing runs in their old order, and new runs after them', async () => {
    const ledger = await openLedger({ databaseUrl, schema });
    try {
      const created = await ledger.createRun({ jobName: 'j', mode: 'upsert' });
      const runs = await ledger.listRuns(10);
      expect(runs.map((r) => [r.id, r.seq])).toEqual([
        [created.id, 4],
        ['20261101-010000-bbbb', 3],
        ['20261101-010000-aaaa', 2],
        ['20261031-230000-ffff', 1],
      ]);
    } finally {
      await ledger.close();
    }
  });

  it('erases the unkeyed hashes of params with a secret, and keeps the others', async () => {
    const ledger = await openLedger({ databaseUrl, schema });
    try {
      const hashes = await ledger.loadHashes('user');
      expect(Object.fromEntries(hashes)).toEqual({ 'with-pw': 'erased-unkeyed', 'no-pw': 'plain-no-pw' });
      const planned = await ledger.pendingIntents('20261101-010000-aaaa');
      expect(planned.map((p) => [p.key, p.hash])).toEqual([
        ['with-pw', 'erased-unkeyed'],
        ['no-pw', 'plain-no-pw'],
      ]);
    } finally {
      await ledger.close();
    }
  });
});
