import type {
  DeliveryFilter,
  JobNoticeState,
  LedgerNotices,
  NewNoticeDelivery,
  NoticeDelivery,
  NoticeDeliveryOutcome,
  NoticeProblem,
  NoticeStateChange,
} from './ledger-notices.js';
import { urlsAsOrigins } from '../log/redaction.js';
import { one, toNumber, type Int8 } from './ledger-rows.js';
import type { SqlClient } from './sql-client.js';

// Every statement names the conference (migration 13): a job's notices are its own in each.

/** $1 job name, $2 settings JSON, $3 conference id. */
const SAVE_SETTINGS = `INSERT INTO job_notices (job_name, settings, conference_id) VALUES ($1, $2::text::jsonb, $3)
ON CONFLICT (conference_id, job_name) DO UPDATE SET settings = excluded.settings`;

/** $1 job name, $2 conference id. */
const FORGET = `DELETE FROM job_notices WHERE job_name = $1 AND conference_id = $2`;

const STATE_COLUMNS = 'job_name, conference_id, settings, problems, state_key, changed_at, run_id';

/** $1 job name, $2 conference id. */
const SELECT_STATE = `SELECT ${STATE_COLUMNS} FROM job_notices WHERE job_name = $1 AND conference_id = $2`;
const SELECT_STATES = `SELECT ${STATE_COLUMNS} FROM job_notices ORDER BY job_name, conference_id`;

/**
 * $1 job name, $2 the state it must still be in, $3 problems JSON, $4 new state key, $5 run
 * id, $6 conference id.
 */
const CHANGE_STATE = `UPDATE job_notices SET problems = $3::text::jsonb, state_key = $4, run_id = $5,
  changed_at = now()
WHERE job_name = $1 AND conference_id = $6 AND state_key = $2 RETURNING job_name`;

/** $1 job name, $2 run id, $3 event, $4 channel, $5 conference id. */
const INSERT_DELIVERY = `INSERT INTO notice_deliveries (job_name, run_id, event, channel, status, conference_id)
VALUES ($1, $2, $3, $4, 'sending', $5) RETURNING id`;

/** $1 id, $2 status, $3 attempts, $4 error. */
const FINISH_DELIVERY = `UPDATE notice_deliveries SET status = $2, attempts = $3, error = $4, finished_at = now()
WHERE id = $1`;

/** $1 job name or NULL, $2 limit, $3 conference id or NULL (any). */
const SELECT_DELIVERIES = `SELECT id, job_name, conference_id, run_id, event, channel, status, attempts, error,
  created_at, finished_at FROM notice_deliveries
WHERE ($1::text IS NULL OR job_name = $1) AND ($3::integer IS NULL OR conference_id = $3::integer)
ORDER BY id DESC LIMIT $2`;

interface StateRow {
  job_name: string;
  conference_id: number;
  settings: unknown;
  problems: NoticeProblem[] | null;
  state_key: string;
  changed_at: Date;
  run_id: string | null;
}

interface DeliveryRow {
  id: Int8;
  job_name: string;
  conference_id: number;
  run_id: string | null;
  event: string;
  channel: string;
  status: string;
  attempts: number;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/**
 * `LedgerNotices` in SQL (migrations 12 and 13), one dialect for PGlite and PostgreSQL, for
 * one conference: `conferenceId` 0 is the ledger's own ("not known", migration 8).
 */
export class SqlNotices implements LedgerNotices {
  constructor(
    private readonly sql: () => SqlClient,
    private readonly conferenceId: number,
  ) {}

  async saveSettings(jobName: string, settings: unknown): Promise<void> {
    await this.sql().query(SAVE_SETTINGS, [jobName, JSON.stringify(settings), this.conferenceId]);
  }

  async forget(jobName: string): Promise<void> {
    await this.sql().query(FORGET, [jobName, this.conferenceId]);
  }

  async state(jobName: string): Promise<JobNoticeState | undefined> {
    const [row] = await this.sql().query<StateRow>(SELECT_STATE, [jobName, this.conferenceId]);
    return row === undefined ? undefined : toState(row);
  }

  async states(): Promise<JobNoticeState[]> {
    return (await this.sql().query<StateRow>(SELECT_STATES)).map(toState);
  }

  async changeState(jobName: string, fromKey: string, to: NoticeStateChange): Promise<boolean> {
    const rows = await this.sql().query(CHANGE_STATE, [
      jobName,
      fromKey,
      JSON.stringify(to.problems),
      to.stateKey,
      to.runId,
      this.conferenceId,
    ]);
    return rows.length > 0;
  }

  async addDelivery(delivery: NewNoticeDelivery): Promise<number> {
    const row = one(
      await this.sql().query<{ id: Int8 }>(INSERT_DELIVERY, [
        delivery.jobName,
        delivery.runId,
        delivery.event,
        delivery.channel,
        this.conferenceId,
      ]),
    );
    return toNumber(row.id);
  }

  async finishDelivery(id: number, outcome: NoticeDeliveryOutcome): Promise<void> {
    await this.sql().query(FINISH_DELIVERY, [id, outcome.status, outcome.attempts, outcome.error ?? null]);
  }

  async deliveries(filter: DeliveryFilter = {}): Promise<NoticeDelivery[]> {
    const rows = await this.sql().query<DeliveryRow>(SELECT_DELIVERIES, [
      filter.jobName ?? null,
      Math.max(1, Math.floor(filter.limit ?? 20)),
      filter.conferenceId ?? null,
    ]);
    return rows.map((row) => ({
      id: toNumber(row.id),
      jobName: row.job_name,
      conferenceId: row.conference_id,
      runId: row.run_id,
      event: row.event as NoticeDelivery['event'],
      // Read as webhooks are written now, by origin: evsyncs before webhooks were named so kept
      // more of the URL (a Slack path's token) in the error, and one may share this ledger
      // still (docs/notifications.md, "What the ledger keeps of a delivery").
      channel: urlsAsOrigins(row.channel),
      status: row.status as NoticeDelivery['status'],
      attempts: row.attempts,
      error: row.error === null ? null : urlsAsOrigins(row.error),
      createdAt: new Date(row.created_at),
      finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
    }));
  }
}

function toState(row: StateRow): JobNoticeState {
  return {
    jobName: row.job_name,
    conferenceId: row.conference_id,
    settings: row.settings,
    problems: row.problems ?? [],
    stateKey: row.state_key,
    changedAt: new Date(row.changed_at),
    runId: row.run_id,
  };
}
