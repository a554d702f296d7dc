import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ensureEmbeddedServer } from '../../../src/ledger/embedded-server.js';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { openPgClient } from '../../../src/ledger/pg-client.js';
import { removeWorkspace } from '../../helpers/remove-workspace.js';
import { describeLedgerConformance, type LedgerFixture } from './ledger-conformance.js';

// The embedded ledger is a PostgreSQL server of the data folder's own, which several
// processes (and connections) share: the same suite as the PostgreSQL ledger's.
async function embeddedFixture(): Promise<LedgerFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'evsync-ledger-'));
  return {
    openLedger: () => openLedger({ dataDir, databaseUrl: '' }),
    openClient: async () => openPgClient({ databaseUrl: (await ensureEmbeddedServer(dataDir)).url }),
    sharedAccess: true,
    fresh: embeddedFixture,
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
}

describeLedgerConformance('embedded (PostgreSQL server of its own)', embeddedFixture);

// A new cluster keeps no spare template database (docs/ledger.md, "Where it lives").
describe('a new embedded cluster', () => {
  it('has the ledger and template1, not template0', { timeout: 60_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'evsync-ledger-'));
    try {
      await (await openLedger({ dataDir, databaseUrl: '' })).close();
      const client = await openPgClient({ databaseUrl: (await ensureEmbeddedServer(dataDir)).url });
      const rows = await client.query<{ datname: string }>('SELECT datname FROM pg_database ORDER BY 1');
      await client.close();
      expect(rows.map((row) => row.datname)).toEqual(['postgres', 'template1']);
    } finally {
      // The server may still be writing into the folder (removeWorkspace waits for it).
      await removeWorkspace(dataDir);
    }
  });
});
