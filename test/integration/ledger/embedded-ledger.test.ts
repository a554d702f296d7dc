import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { openPgliteClient } from '../../../src/ledger/pglite-client.js';
import { describeLedgerConformance, type LedgerFixture } from './ledger-conformance.js';

async function embeddedFixture(): Promise<LedgerFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'evsync-ledger-'));
  return {
    openLedger: () => openLedger({ dataDir, databaseUrl: '' }),
    openClient: async () => (await openPgliteClient(dataDir)).client,
    sharedAccess: false,
    fresh: embeddedFixture,
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
}

describeLedgerConformance('embedded (PGlite)', embeddedFixture);
