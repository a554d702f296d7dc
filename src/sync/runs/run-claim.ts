import type { Ledger } from '../../ledger/ledger.js';

/**
 * Runs `work` holding the run's claim (`Ledger.claimRun`), so that no other evsync sharing
 * the ledger resumes or retries the run meanwhile; throws `EVSYNC_RUN_BUSY` when one does.
 */
export async function whileClaimed<T>(
  ledger: Pick<Ledger, 'claimRun'>,
  runId: string,
  work: () => Promise<T>,
): Promise<T> {
  const release = await ledger.claimRun(runId);
  try {
    return await work();
  } finally {
    await release();
  }
}
