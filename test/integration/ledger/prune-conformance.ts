import { describe, expect, it } from 'vitest';
import type { Ledger } from '../../../src/ledger/ledger.js';
import { PER_RUN_TABLES, SqlPruning } from '../../../src/ledger/sql-prune.js';
import type { SqlClient } from '../../../src/ledger/sql-client.js';
import type { PlannedIntent } from '../../../src/model/planned-intent.js';
import type { IntentResultInput } from '../../../src/model/result-records.js';
import { pruneRuns } from '../../../src/sync/prune/prune-runs.js';
import type { ConformanceContext } from './ledger-conformance.js';

function planned(key: string, hash = `h-${key}`): PlannedIntent {
  return {
    kind: 'user',
    key,
    op: 'upsert',
    plannedAction: 'create',
    params: { 'user[first_name]': key },
    origin: { source: 'users.csv', row: 1 },
    dependsOn: [],
    hash,
  };
}

function result(runId: string, key: string, extra: Partial<IntentResultInput> = {}): IntentResultInput {
  // Results carry the params planned for them, as the engine writes them.
  return {
    runId,
    kind: 'user',
    key,
    action: 'created',
    platformId: 1,
    hash: `h-${key}`,
    params: { 'user[first_name]': key },
    ...extra,
  };
}

/** A completed run of `job` that planned `keys` and sent each; `unchanged` keys were left as they were. */
async function completedRun(
  l: Ledger,
  job: string,
  keys: { sent: string[]; unchanged?: string[]; failed?: string[] },
): Promise<string> {
  const run = await l.createRun({ jobName: job, mode: 'upsert' });
  const all = [...keys.sent, ...(keys.unchanged ?? []), ...(keys.failed ?? [])];
  await l.recordPlannedIntents(
    run.id,
    all.map((key) => planned(key, `h-${key}-${run.id}`)),
  );
  await l.recordResults([
    ...keys.sent.map((key) => result(run.id, key, { hash: `h-${key}-${run.id}` })),
    ...(keys.unchanged ?? []).map((key) => result(run.id, key, { action: 'unchanged', hash: null })),
    ...(keys.failed ?? []).map((key) =>
      result(run.id, key, { action: 'failed', hash: null, platformId: null }),
    ),
  ]);
  await l.finishRun(run.id, 'completed');
  return run.id;
}

async function rowCount(l: Ledger, runId: string): Promise<{ results: number; planned: number }> {
  return { results: (await l.results(runId)).length, planned: await l.countPlanned(runId) };
}

/** Retention (docs/ledger.md, "Retention"): the same on every adapter. */
export function describePruneConformance(context: ConformanceContext): void {
  describe('prune', () => {
    it('removes a run’s per-row data in batches and keeps the rows the synced state points at', async () => {
      const l = context.ledger();
      const job = `prune-keep-${Date.now()}`;
      const keys = Array.from({ length: 11 }, (_, i) => `pk-${i}`);
      const first = await completedRun(l, job, { sent: keys, failed: ['pk-bad'] });
      // The second run changes three keys and leaves the rest: the first run still holds the synced content of 8.
      const second = await completedRun(l, job, {
        sent: keys.slice(0, 3),
        unchanged: keys.slice(3),
      });
      const hashesBefore = await l.loadHashes('user');
      const idsBefore = await l.loadIdMap('user');

      const measured = await l.pruning().measure(first);
      expect(measured.tables.intent_results).toEqual({ removed: 4, kept: 8 });
      // A completed run keeps only the planned intents of rows that failed (docs/ledger.md).
      expect(measured.tables.run_intents).toEqual({ removed: 1, kept: 0 });
      expect(measured.bytes).toBeGreaterThan(0);
      expect(await rowCount(l, first)).toEqual({ results: 12, planned: 1 });

      const counts = await l.resultCounts(first);
      const tally = await l
        .pruning()
        .pruneRun(first, { rule: 'test rule', countsByKind: counts, batchSize: 2 });
      expect(tally.tables.intent_results).toEqual({ removed: 4, kept: 8 });
      expect(tally.tables.run_intents).toEqual({ removed: 1, kept: 0 });
      // An estimate: a row's size as a whole-row value differs by a few bytes from its stored tuple.
      expect(Math.abs(tally.bytes - measured.bytes)).toBeLessThan(measured.bytes * 0.05);

      const left = await l.results(first);
      expect(left.map((r) => r.key).sort()).toEqual(keys.slice(3).sort());
      expect(await l.countPlanned(first)).toBe(0);
      // Nothing of the synced state moved; what reads it still finds the person.
      expect(await l.loadHashes('user')).toEqual(hashesBefore);
      expect(await l.loadIdMap('user')).toEqual(idsBefore);
      expect((await l.syncedParams('user', ['pk-5'])).get('pk-5')).toEqual({ 'user[first_name]': 'pk-5' });
      expect(await l.pendingIntents(first)).toEqual([]);
      // The run stays, with its counts and what was done.
      const run = await l.getRun(first);
      expect(run?.counts).toMatchObject({ created: 11, failed: 1 });
      expect(run?.pruned).toMatchObject({
        rule: 'test rule',
        countsByKind: counts,
        removed: { intent_results: 4, run_intents: 1 },
        kept: { intent_results: 8, run_intents: 0 },
      });
      expect(run?.pruned?.prunedAt).toBeInstanceOf(Date);
      // The other run is untouched; pruning again removes nothing more.
      expect(await rowCount(l, second)).toEqual({ results: 11, planned: 0 });
      const again = await l.pruning().pruneRun(first, { rule: 'again', countsByKind: {} });
      expect(again.tables.intent_results).toEqual({ removed: 4, kept: 8 });
      expect((await l.getRun(first))?.pruned).toMatchObject({ rule: 'test rule', countsByKind: counts });
    });

    it('lists runs oldest first per job, with their pruning state and recorded retention', async () => {
      const l = context.ledger();
      const job = `prune-list-${Date.now()}`;
      const a = await completedRun(l, job, { sent: ['pl-1'] });
      const b = await l.createRun({ jobName: job, mode: 'upsert', options: { retention: { keep_runs: 3 } } });
      await l.pruning().pruneRun(a, { rule: 'r', countsByKind: {} });
      const runs = await l.pruning().runs({ jobName: job });
      expect(runs.map((run) => [run.id, run.status, run.pruning])).toEqual([
        [a, 'completed', 'done'],
        [b.id, 'running', 'none'],
      ]);
      expect(runs[1]?.retention).toEqual({ keep_runs: 3 });
      expect(runs[0]?.finishedAt).toBeInstanceOf(Date);
    });

    it('a prune cut off half way leaves the run refused and is finished by the next one', async () => {
      const job = `prune-cut-${Date.now()}`;
      let l = context.ledger();
      const keys = Array.from({ length: 9 }, (_, i) => `pc-${i}`);
      const first = await completedRun(l, job, { sent: keys });
      await completedRun(l, job, { sent: keys.slice(0, 6), unchanged: keys.slice(6) });
      const counts = await l.resultCounts(first);
      const fixture = context.fixture();
      if (!fixture.sharedAccess) await l.close();
      const client = await fixture.openClient();
      try {
        // Dies on its third delete statement, as a killed process would stop.
        let deletes = 0;
        const dying: SqlClient = Object.create(client) as SqlClient;
        dying.query = async <T extends object>(sql: string, params?: readonly unknown[]): Promise<T[]> => {
          if (sql.includes('DELETE FROM') && ++deletes === 3) throw new Error('killed');
          return client.query<T>(sql, params);
        };
        await expect(
          new SqlPruning(() => dying).pruneRun(first, { rule: 'cut', countsByKind: counts, batchSize: 2 }),
        ).rejects.toThrow('killed');
      } finally {
        await client.close();
      }
      l = fixture.sharedAccess ? l : await context.reopen();
      const cut = await l.getRun(first);
      expect(cut?.pruned).toMatchObject({ rule: 'cut', prunedAt: null });
      expect(await l.pendingIntents(first)).toEqual([]);
      expect((await l.pruning().runs({ jobName: job }))[0]?.pruning).toBe('started');

      // No rule at all: the cut-off prune is finished anyway, and nothing else is touched.
      const report = await pruneRuns(l, { jobName: job });
      expect(report.runs.map((run) => run.runId)).toEqual([first]);
      expect(report.runs[0]?.tally.tables.intent_results).toEqual({ removed: 6, kept: 3 });
      expect(report.withoutRetention).toEqual([job]);
      const done = await l.getRun(first);
      expect(done?.pruned?.prunedAt).toBeInstanceOf(Date);
      expect(done?.pruned?.countsByKind).toEqual(counts);
    });

    it('prunes every table of the per-run list, one that keeps nothing by ctid batches, and skips one not there yet', async () => {
      const job = `prune-tables-${Date.now()}`;
      let l = context.ledger();
      const first = await completedRun(l, job, { sent: ['pt-1'] });
      const fixture = context.fixture();
      if (!fixture.sharedAccess) await l.close();
      const client = await fixture.openClient();
      try {
        await client.execScript(
          `CREATE TABLE prune_test_rows (run_id text NOT NULL, kind text NOT NULL, n integer NOT NULL);
           CREATE INDEX prune_test_rows_run ON prune_test_rows (run_id);`,
        );
        await client.query(
          `INSERT INTO prune_test_rows SELECT r, 'user', g FROM (VALUES ($1), ('other-run')) AS v(r), generate_series(1, 5) AS g`,
          [first],
        );
        const tables = [
          ...PER_RUN_TABLES,
          { table: 'prune_test_rows', keepsSyncedRows: false, optional: true },
          { table: 'prune_test_missing', keepsSyncedRows: false, optional: true },
        ];
        const tally = await new SqlPruning(() => client, tables).pruneRun(first, {
          rule: 'tables',
          countsByKind: {},
          batchSize: 2,
        });
        expect(tally.tables.prune_test_rows).toEqual({ removed: 5, kept: 0 });
        expect(tally.tables).not.toHaveProperty('prune_test_missing');
        expect(tally.tables.intent_results).toEqual({ removed: 0, kept: 1 });
        const left = await client.query<{ run_id: string; n: number | string }>(
          'SELECT run_id, count(*) AS n FROM prune_test_rows GROUP BY run_id',
        );
        expect(left.map((row) => [row.run_id, Number(row.n)])).toEqual([['other-run', 5]]);
        await client.execScript('DROP TABLE prune_test_rows');
      } finally {
        await client.close();
      }
      l = fixture.sharedAccess ? l : await context.reopen();
      expect((await l.getRun(first))?.pruned?.removed).toMatchObject({ prune_test_rows: 5 });
    });

    it('prunes oldest first, never a resumable run, one with pending intents, the newest completed, or any after them', async () => {
      const l = context.ledger();
      const job = `prune-select-${Date.now()}`;
      const r1 = await completedRun(l, job, { sent: ['ps-1'] });
      const r2 = await completedRun(l, job, { sent: ['ps-2'] });
      // Completed, yet one planned intent has no result: a resume can still send it.
      const r3 = await completedRun(l, job, { sent: ['ps-3'] });
      await l.recordPlannedIntents(r3, [planned('ps-3-pending')]);
      const r4 = await completedRun(l, job, { sent: ['ps-4'] });
      const r5 = (await l.createRun({ jobName: job, mode: 'upsert' })).id;
      await l.finishRun(r5, 'interrupted');
      const r6 = await completedRun(l, job, { sent: ['ps-6'] });
      const later = new Date(Date.now() + 3 * 86_400_000);

      // Both rules: only runs both select. None has finished two days before now.
      const none = await pruneRuns(l, {
        jobName: job,
        retention: { olderThan: '2d', keepRuns: 1 },
        dryRun: true,
      });
      expect(none.runs).toEqual([]);

      const dry = await pruneRuns(l, {
        jobName: job,
        retention: { olderThan: '2d' },
        now: later,
        dryRun: true,
      });
      expect(dry.runs.map((run) => run.runId)).toEqual([r1, r2]);
      expect(dry.runs[0]?.tally.tables.intent_results).toEqual({ removed: 0, kept: 1 });
      expect(dry.held.map((held) => held.runId)).toEqual([r3, r4, r5, r6]);
      expect(dry.held[0]?.reason).toContain('planned intents without a final result');
      expect((await l.getRun(r1))?.pruned).toBeUndefined();

      // r3 gets its result: then r5, interrupted, stops the walk; r6, the newest completed, stays anyway.
      await l.recordResults([result(r3, 'ps-3-pending', { action: 'failed', hash: null })]);
      const report = await pruneRuns(l, { jobName: job, retention: { keepRuns: 1 } });
      expect(report.runs.map((run) => run.runId)).toEqual([r1, r2, r3, r4]);
      expect(report.held).toEqual([
        { runId: r5, jobName: job, reason: expect.stringContaining('interrupted') as string },
      ]);
      expect(report.totals.runs).toBe(4);
      // A key synced by r1 and never changed since: its result stays with r1.
      expect((await l.results(r1)).map((r) => r.key)).toEqual(['ps-1']);
      expect((await l.results(r3)).map((r) => r.key)).toEqual(['ps-3']);

      await l.finishRun(r5, 'completed');
      const last = await pruneRuns(l, { jobName: job, retention: { olderThan: '0h' } });
      expect(last.runs.map((run) => run.runId)).toEqual([r5]);
      expect(last.held).toEqual([
        { runId: r6, jobName: job, reason: expect.stringContaining('newest completed') as string },
      ]);
      expect((await l.getRun(r6))?.pruned).toBeUndefined();
    });
  });
}
