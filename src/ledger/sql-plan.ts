import { isSecretParam, redactParams } from '../log/redaction.js';
import type { IntentKind } from '../model/intent.js';
import type { PendingFilter, PlannedIntent, PlannedIntentRecord } from '../model/planned-intent.js';
import type { ResultFilter } from '../model/result-records.js';
import type { KeyOutcome } from './ledger.js';
import { toNumber, toPlannedIntentRecord, type PlannedIntentRow } from './ledger-rows.js';
import * as q from './ledger-sql.js';
import { reopenResults, selectPending, selectPlannedByResult } from './result-query.js';
import type { SqlClient } from './sql-client.js';
import { dedupe } from './sql-sync-state.js';
import { storableJson } from './storable-json.js';

/** Rows per bulk statement: large enough to amortise a round trip, small enough for memory. */
const CHUNK = 1000;

/**
 * A run's plan (`run_intents`): recorded before the first call, then read by what finishes
 * it (resume, retry, distributed workers) and asked what later runs did with its keys
 * (docs/ledger.md, "Send marks, reopened intents, claims"). The ledger delegates here.
 */
export class SqlPlan {
  constructor(
    private readonly sql: () => SqlClient,
    /** Throws for a run the ledger does not have (docs/ledger.md, "Run references"). */
    private readonly requireRuns: (runIds: readonly string[]) => Promise<Map<string, number>>,
  ) {}

  async recordPlannedIntents(runId: string, intents: readonly PlannedIntent[]): Promise<void> {
    if (intents.length === 0) return;
    await this.requireRuns([runId]);
    const rows = dedupe(
      intents.map((intent) => ({
        kind: intent.kind,
        key: intent.key,
        op: intent.op,
        planned_action: intent.plannedAction,
        params: redactParams(intent.params),
        redacted_params: Object.keys(intent.params).filter(isSecretParam),
        origin: intent.origin,
        depends_on: intent.dependsOn,
        hash: intent.hash,
        aliases: intent.aliases ?? null,
      })),
    );
    // One statement is atomic by itself: a plan's chunk (1,000 at most) is one, without the
    // BEGIN and COMMIT round trips a transaction adds; bigger inputs are chunked inside one.
    if (rows.length <= CHUNK) {
      await this.sql().query(q.INSERT_PLANNED, [runId, storableJson(rows)]);
      return;
    }
    await this.sql().transaction(async (tx) => {
      for (let start = 0; start < rows.length; start += CHUNK) {
        await tx.query(q.INSERT_PLANNED, [runId, storableJson(rows.slice(start, start + CHUNK))]);
      }
    });
  }

  async countPlanned(runId: string): Promise<number> {
    const rows = await this.sql().query<{ n: number | string }>(q.COUNT_PLANNED, [runId]);
    return toNumber(rows[0]?.n ?? 0);
  }

  async pendingIntents(runId: string, filter?: PendingFilter): Promise<PlannedIntentRecord[]> {
    const { sql, params } = selectPending(runId, filter);
    return (await this.sql().query<PlannedIntentRow>(sql, params)).map(toPlannedIntentRecord);
  }

  async markSendStarted(
    runId: string,
    intents: ReadonlyArray<{ kind: IntentKind; key: string }>,
  ): Promise<void> {
    if (intents.length === 0) return;
    const marks = intents.map(({ kind, key }) => ({ kind, key }));
    await this.sql().query(q.MARK_SEND_STARTED, [runId, storableJson(marks)]);
  }

  async unmarkSendStarted(runId: string, intent: { kind: IntentKind; key: string }): Promise<void> {
    await this.sql().query(q.UNMARK_SEND_STARTED, [runId, intent.kind, intent.key]);
  }

  async reopenIntents(runId: string, filter: ResultFilter): Promise<number> {
    const { sql, params } = reopenResults(runId, filter);
    const rows = await this.sql().query<{ n: number | string }>(sql, params);
    return toNumber(rows[0]?.n ?? 0);
  }

  async plannedByResult(runId: string, filter: ResultFilter): Promise<PlannedIntentRecord[]> {
    const { sql, params } = selectPlannedByResult(runId, filter);
    return (await this.sql().query<PlannedIntentRow>(sql, params)).map(toPlannedIntentRecord);
  }

  async handledLater(runId: string): Promise<Set<string>> {
    const rows = await this.sql().query<{ kind: string; key: string }>(q.SELECT_HANDLED_LATER, [runId]);
    return new Set(rows.map((row) => `${row.kind}\u0000${row.key}`));
  }

  async outcomesOf(
    runId: string,
    kind: IntentKind,
    keys: readonly string[],
  ): Promise<Map<string, KeyOutcome>> {
    const found = new Map<string, KeyOutcome>();
    for (let start = 0; start < keys.length; start += CHUNK) {
      const rows = await this.sql().query<{
        key: string;
        action: KeyOutcome['action'];
        error_message: string | null;
      }>(q.SELECT_OUTCOMES_OF, [runId, kind, keys.slice(start, start + CHUNK)]);
      for (const row of rows) found.set(row.key, { action: row.action, errorMessage: row.error_message });
    }
    return found;
  }

  async countPending(
    runId: string,
  ): Promise<Array<{ kind: IntentKind; plannedAction: PlannedIntent['plannedAction']; count: number }>> {
    const rows = await this.sql().query<{
      kind: IntentKind;
      planned_action: PlannedIntent['plannedAction'];
      n: number | string;
    }>(q.COUNT_PENDING, [runId]);
    return rows.map((row) => ({ kind: row.kind, plannedAction: row.planned_action, count: toNumber(row.n) }));
  }

  async refreshPlanStatistics(): Promise<void> {
    // ANALYZE samples a fixed number of rows: about half a second on a ledger of 340,000.
    await this.sql()
      .query(q.ANALYZE_PLAN_TABLES)
      .catch(() => {});
  }

  async planSpan(runId: string): Promise<{ first: number; last: number } | undefined> {
    const rows = await this.sql().query<{ first: number | string | null; last: number | string | null }>(
      q.SELECT_PLAN_SPAN,
      [runId],
    );
    const span = rows[0];
    if (span?.first === null || span?.first === undefined || span.last === null) return undefined;
    return { first: toNumber(span.first), last: toNumber(span.last) };
  }

  async handledLaterOf(runId: string, kind: IntentKind, keys: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let start = 0; start < keys.length; start += CHUNK) {
      const rows = await this.sql().query<{ key: string }>(q.SELECT_HANDLED_LATER_OF, [
        runId,
        kind,
        keys.slice(start, start + CHUNK),
      ]);
      for (const row of rows) found.add(row.key);
    }
    return found;
  }
}
