import { storableJson } from './storable-json.js';
import { totalsOf, type ActionCounts } from '../model/result-records.js';
import type { ConferenceRecord } from '../model/conference.js';
import type { NewRun, RunRecord, RunStatus } from '../model/run-record.js';
import type { JobRuns, RunListFilter } from './ledger.js';
import { unknownRunError } from './ledger-error.js';
import { one, toNumber, toRunRecord, type Int8, type RunRow } from './ledger-rows.js';
import * as q from './ledger-sql.js';
import { newRunId } from './run-id.js';
import type { SqlClient } from './sql-client.js';
import type { SqlRunResults } from './sql-run-results.js';

const UNIQUE_VIOLATION = '23505';

/**
 * The runs of the ledger: created, finished, listed (docs/ledger.md, "Tables"). The
 * ledger's run methods delegate here; a view of one conference creates its runs in it.
 */
export class SqlRuns {
  constructor(
    private readonly sql: () => SqlClient,
    private readonly conference: ConferenceRecord | undefined,
    /** Runs known to exist, with their conference (shared by every view of the ledger). */
    private readonly knownRuns: Map<string, number>,
    private readonly runResults: SqlRunResults,
  ) {}

  async createRun(run: NewRun): Promise<RunRecord> {
    const params = (id: string): unknown[] => [
      id,
      run.jobName,
      run.mode,
      storableJson(run.options ?? {}),
      this.conference?.id ?? null,
    ];
    let created: RunRecord;
    try {
      created = toRunRecord(one(await this.sql().query<RunRow>(q.INSERT_RUN, params(newRunId()))));
    } catch (error) {
      // Two runs started in the same second drew the same 16-bit suffix: draw again, once.
      if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
      created = toRunRecord(one(await this.sql().query<RunRow>(q.INSERT_RUN, params(newRunId()))));
    }
    if (created.conference) this.knownRuns.set(created.id, created.conference.id);
    return created;
  }

  async finishRun(
    runId: string,
    status: RunStatus,
    counts?: ActionCounts,
    lost?: number,
  ): Promise<RunRecord> {
    const totals = counts ?? totalsOf(await this.runResults.counts(runId));
    const rows = await this.sql().query<RunRow>(q.FINISH_RUN, [
      runId,
      status,
      JSON.stringify(totals),
      lost ?? null,
    ]);
    if (rows.length === 0) throw unknownRunError(runId);
    // What only a resume needed goes once nothing is left to resume (docs/ledger.md).
    if (status === 'completed') await this.runResults.dropSettledPlan(runId, resultRowsOf(totals));
    return toRunRecord(one(rows));
  }

  async setRunStatus(runId: string, status: RunStatus): Promise<void> {
    const rows = await this.sql().query(q.SET_RUN_STATUS, [runId, status]);
    if (rows.length === 0) throw unknownRunError(runId);
  }

  async mergeRunOptions(runId: string, options: Record<string, unknown>): Promise<void> {
    const rows = await this.sql().query(q.MERGE_RUN_OPTIONS, [runId, JSON.stringify(options)]);
    if (rows.length === 0) throw unknownRunError(runId);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const rows = await this.sql().query<RunRow>(q.SELECT_RUN, [runId]);
    return rows[0] === undefined ? undefined : toRunRecord(rows[0]);
  }

  async listRuns(limit = 20, filter: RunListFilter = {}): Promise<RunRecord[]> {
    const rows = await this.sql().query<RunRow>(q.SELECT_RUNS, [
      Math.max(0, Math.floor(limit)),
      filter.conferenceId ?? null,
      filter.jobName ?? null,
      filter.statuses === undefined ? null : filter.statuses.join(','),
      filter.trigger ?? null,
      filter.since ?? null,
    ]);
    return rows.map(toRunRecord);
  }

  async runCounts(): Promise<Array<{ jobName: string; status: RunStatus; count: number }>> {
    const rows = await this.sql().query<{ job_name: string; status: string; n: Int8 }>(q.COUNT_RUNS_BY_JOB);
    return rows.map((row) => ({
      jobName: row.job_name,
      status: row.status as RunStatus,
      count: toNumber(row.n),
    }));
  }

  async jobRuns(): Promise<JobRuns[]> {
    const [last, completed, successes] = await Promise.all([
      this.sql().query<RunRow>(q.SELECT_LAST_RUNS),
      this.sql().query<RunRow>(q.SELECT_LAST_COMPLETED),
      this.sql().query<RunRow>(q.SELECT_LAST_SUCCESSES),
    ]);
    const key = (run: RunRecord): string => `${run.jobName}\u0000${run.conference?.id ?? ''}`;
    const byJob = (rows: RunRow[]): Map<string, RunRecord> =>
      new Map(rows.map((row) => toRunRecord(row)).map((run) => [key(run), run]));
    const lastCompleted = byJob(completed);
    const success = byJob(successes);
    return last.map((row) => {
      const run = toRunRecord(row);
      return {
        jobName: run.jobName,
        conferenceId: run.conference?.id ?? null,
        last: run,
        lastCompleted: lastCompleted.get(key(run)),
        lastSuccess: success.get(key(run)),
      };
    });
  }
}

/** Results a run wrote a row for: an unchanged key is kept in its chunk's row (`run_unchanged`). */
export function resultRowsOf(totals: ActionCounts): number {
  let rows = 0;
  for (const [action, n] of Object.entries(totals)) if (action !== 'unchanged') rows += n;
  return rows;
}
