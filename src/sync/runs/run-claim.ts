import type { JobLock, Ledger } from '../../ledger/ledger.js';
import type { Logger } from '../../log/logger.js';
import { adoptUnscopedState } from './conference-scope.js';

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

/**
 * Runs `work` holding the job's lock (`Ledger.lockJob`): a run, a resume and a retry of a
 * job each take it before reading what the ledger says was synced, so two of them never
 * plan or send the same rows at once. Throws `EVSYNC_JOB_BUSY` when another holds it,
 * unless `waitForJob` is given: then it is told who holds it and the lock is waited for.
 * The lock is the job's against the ledger's conference; once it is held, the job's state
 * recorded before runs named their conference becomes this conference's.
 */
export async function whileJobLocked<T>(
  deps: {
    ledger: Pick<Ledger, 'lockJob' | 'conference' | 'adoptUnscopedState'>;
    waitForJob?: (holder: string) => void;
    signal?: AbortSignal;
    logger?: Logger;
  },
  jobName: string,
  work: (lock: JobLock) => Promise<T>,
): Promise<T> {
  const lock = await deps.ledger.lockJob(
    jobName,
    deps.waitForJob ? { wait: deps.waitForJob, ...(deps.signal ? { signal: deps.signal } : {}) } : {},
  );
  try {
    await adoptUnscopedState(deps.ledger, jobName, deps.logger);
    return await work(lock);
  } finally {
    await lock.release();
  }
}
