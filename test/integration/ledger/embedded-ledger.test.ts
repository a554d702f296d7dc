import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureEmbeddedServer } from '../../../src/ledger/embedded-server.js';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { openPgClient } from '../../../src/ledger/pg-client.js';
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
