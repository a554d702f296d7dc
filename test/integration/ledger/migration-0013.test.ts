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
const schema = `evsync_m13_${randomBytes(5).toString('hex')}`;

// Notices written by an evsync before migration 13 (keyed by job name alone), then upgraded:
// each is kept, as the state of the conference the job's newest run wrote to.
describe.runIf(available)('migration 13 on a ledger with notices keyed by job', () => {
  let client: SqlClient;
  beforeAll(async () => {
    client = await openPgClient({ databaseUrl, schema });
    await migrate(
      client,
      MIGRATIONS.filter((m) => m.version <= 12),
    );
    await client.execScript(`
INSERT INTO conferences (id, base_url) VALUES (1, 'https://a.example'), (2, 'https://b.example');
INSERT INTO runs (id, job_name, mode, status, started_at, conference_id) VALUES
  ('20261101-010000-aaaa', 'nightly', 'upsert', 'completed', '2026-11-01T01:00:00Z', 1),
  ('20261101-020000-bbbb', 'nightly', 'upsert', 'aborted', '2026-11-01T02:00:00Z', 2);
INSERT INTO job_notices (job_name, settings, problems, state_key, run_id) VALUES
  ('nightly', '{"channels":[]}', '[{"rule":"run_failed","text":"run B ended aborted"}]', 'run_failed',
   '20261101-020000-bbbb'),
  ('never-ran', '{"channels":[]}', '[]', '', NULL);
INSERT INTO notice_deliveries (job_name, run_id, event, channel, status) VALUES
  ('nightly', '20261101-020000-bbbb', 'problem', 'webhook hooks.example', 'failed');
`);
    await migrate(client);
  });
  afterAll(async () => {
    await client?.close();
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it("keeps each notice as its job's newest conference's, and the others apart", async () => {
    const ledger = await openLedger({ databaseUrl, schema });
    try {
      const [b, a] = [
        await ledger.findConference('https://b.example'),
        await ledger.findConference('https://a.example'),
      ];
      expect((await ledger.forConference(b!).notices().state('nightly'))?.stateKey).toBe('run_failed');
      expect(await ledger.forConference(a!).notices().state('nightly')).toBeUndefined();
      expect((await ledger.notices().state('never-ran'))?.conferenceId).toBe(0);
      expect((await ledger.notices().deliveries({ jobName: 'nightly' })).map((d) => d.conferenceId)).toEqual([
        2,
      ]);
      // Conference A's state is its own now: set there, B's stays.
      await ledger.forConference(a!).notices().saveSettings('nightly', { channels: [] });
      expect((await ledger.forConference(a!).notices().state('nightly'))?.stateKey).toBe('');
      expect((await ledger.notices().states()).map((s) => [s.jobName, s.conferenceId])).toEqual([
        ['never-ran', 0],
        ['nightly', 1],
        ['nightly', 2],
      ]);
    } finally {
      await ledger.close();
    }
  });
});
