import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { openPgClient } from '../../../src/ledger/pg-client.js';
import { SERVICES, serviceAvailable } from '../../helpers/services.js';
import { describeLedgerConformance, type LedgerFixture } from './ledger-conformance.js';

const databaseUrl = SERVICES.postgres.url;
const available = await serviceAvailable('postgres');

/** A unique schema per store, so parallel test files and reruns never collide. */
function postgresFixture(): Promise<LedgerFixture> {
  const schema = `evsync_test_${randomBytes(5).toString('hex')}`;
  return Promise.resolve({
    openLedger: () => openLedger({ databaseUrl, schema }),
    openClient: () => openPgClient({ databaseUrl, schema }),
    sharedAccess: true,
    fresh: postgresFixture,
    cleanup: async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  });
}

describeLedgerConformance('PostgreSQL', postgresFixture, { skip: !available });
