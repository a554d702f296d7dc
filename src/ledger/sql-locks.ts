import { hostname } from 'node:os';
import { CODE } from '../errors/codes.js';
import type { RunRecord } from '../model/run-record.js';
import type { JobLock, LockJobOptions } from './ledger.js';
import { LedgerBusyError, LedgerError } from './ledger-error.js';
import * as q from './ledger-sql.js';
import type { SqlClient } from './sql-client.js';
import { isAlive } from './process-identity.js';
import { NO_CONFERENCE } from './known-runs.js';

/**
 * A ledger's locks (`Ledger.claimRun`, `lockJob`, `processGone`): session advisory locks on
 * PostgreSQL, the folder lock and memory on the embedded ledger (`SqlClient.tryLock`). A
 * job's lock is the job's against one conference.
 */
export class SqlLocks {
  constructor(
    private readonly sql: () => SqlClient,
    private readonly conferenceId: number,
  ) {}

  async claimRun(runId: string): Promise<() => Promise<void>> {
    const release = await this.sql().tryLock(`run:${runId}`);
    if (release === undefined) {
      throw new LedgerError(
        `Run ${runId} is being worked on by another evsync process (its run, a resume or a retry of it). ` +
          'Wait for that to end (see `evsync runs`), then try again.',
        { code: CODE.EVSYNC_RUN_BUSY },
      );
    }
    return release;
  }

  async lockJob(jobName: string, options: LockJobOptions = {}): Promise<JobLock> {
    const name = jobLockName(jobName, this.conferenceId);
    let release = await this.sql().tryLock(name);
    if (release === undefined) release = await this.afterDeadHolder(jobName, name);
    if (release === undefined) {
      const holder = await this.jobHolder(jobName);
      if (options.wait === undefined) throw jobBusy(jobName, holder);
      options.wait(`job "${jobName}" is being run by ${holder.text}`);
      release = await this.sql().tryLock(name, {
        wait: true,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (release === undefined) {
        throw new LedgerBusyError(
          `Stopped while waiting for job "${jobName}" (run by ${holder.text}): nothing was run.`,
          CODE.EVSYNC_JOB_BUSY,
          `job "${jobName}" is being run by ${holder.text}`,
        );
      }
    }
    const unlock = release;
    try {
      await this.sql().query(q.NOTE_JOB_LOCK, [jobName, process.pid, hostname(), this.conferenceId]);
    } catch (error) {
      await unlock();
      throw error;
    }
    let released = false;
    return {
      jobName,
      holding: async (runId) => {
        await this.sql().query(q.NOTE_JOB_LOCK_RUN, [jobName, runId, this.conferenceId]);
      },
      release: async () => {
        if (released) return;
        released = true;
        await unlock();
      },
    };
  }

  /**
   * The job's lock once PostgreSQL has seen its holder go, when the holder noted in
   * `job_locks` is a process of this machine that no longer exists: a process killed a
   * moment ago still holds its advisory locks until its server session notices the closed
   * socket. Undefined when the holder lives (or is elsewhere), or after `DEAD_HOLDER_MS`.
   */
  private async afterDeadHolder(jobName: string, name: string): Promise<(() => Promise<void>) | undefined> {
    const holder = await this.jobHolder(jobName);
    if (holder.host !== hostname() || holder.pid === undefined || isAlive(holder.pid)) return undefined;
    const until = Date.now() + DEAD_HOLDER_MS;
    while (Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const release = await this.sql().tryLock(name);
      if (release !== undefined) return release;
    }
    return undefined;
  }

  /** Who holds a job's lock, as the holder noted it (see `NOTE_JOB_LOCK`), in words. */
  private async jobHolder(jobName: string): Promise<JobHolder> {
    const rows = await this.sql().query<{
      run_id: string | null;
      pid: number;
      host: string;
      locked_at: Date;
    }>(q.SELECT_JOB_LOCK, [jobName, this.conferenceId]);
    const row = rows[0];
    if (row === undefined) return { text: 'another evsync process' };
    const since = new Date(row.locked_at).toISOString().replace('T', ' ').slice(0, 19);
    const where = `process ${row.pid} on ${row.host}`;
    return {
      text:
        row.run_id === null
          ? `another evsync process (${where}, planning since ${since} UTC)`
          : `run ${row.run_id} (${where}, since ${since} UTC)`,
      pid: row.pid,
      host: row.host,
    };
  }

  async processGone(run: RunRecord): Promise<boolean> {
    if (run.status !== 'running') return false;
    const db = this.sql();
    if (await db.isLocked(`run:${run.id}`)) return false;
    const conferenceId = run.conference?.id ?? NO_CONFERENCE;
    if (!(await db.isLocked(jobLockName(run.jobName, conferenceId)))) return true;
    // The job's lock is held, by this run (just created, not claimed yet) or by a later one.
    // A run is created before its holder notes it in the lock (run-job.ts), and the
    // dashboard shows the run the moment it exists: in between it is not gone.
    const [holder] = await db.query<{ its: boolean }>(q.JOB_LOCK_IS_RUNS, [
      run.jobName,
      conferenceId,
      run.id,
    ]);
    return holder?.its !== true;
  }
}

/** How long a lock whose holder died on this machine may take to be let go (`afterDeadHolder`). */
const DEAD_HOLDER_MS = 10_000;

/** The advisory lock of a job's runs against one conference (`Ledger.lockJob`). */
function jobLockName(jobName: string, conferenceId: number): string {
  return conferenceId === NO_CONFERENCE ? `job:${jobName}` : `job:${conferenceId}:${jobName}`;
}

interface JobHolder {
  text: string;
  pid?: number;
  host?: string;
}

function jobBusy(jobName: string, holder: JobHolder): LedgerBusyError {
  const stop =
    holder.pid === undefined
      ? 'stop it (Ctrl-C in its terminal)'
      : `stop it (Ctrl-C in its terminal, or \`kill ${holder.pid}\` on ${holder.host ?? 'its machine'})`;
  return new LedgerBusyError(
    `Job "${jobName}" is already being run by ${holder.text}: two runs of one job at once would send its rows twice. ` +
      `Wait for it with --wait (run, resume and retry then wait for it to end and go on), or ${stop}; ` +
      'a run that was killed lets go of the job at once.',
    CODE.EVSYNC_JOB_BUSY,
    `job "${jobName}" is being run by ${holder.text}`,
  );
}
