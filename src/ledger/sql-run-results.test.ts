import { describe, expect, it } from 'vitest';
import type { SqlClient } from './sql-client.js';
import { SqlRunResults } from './sql-run-results.js';
import { resultRowsOf } from './sql-runs.js';

/**
 * A SQL client that answers the settled-plan statements: a plan span of `planned` seqs,
 * each DELETE deleting its whole span once `releaseDeletes` lets it go.
 */
function fakeSql(planned: number) {
  const statements: string[] = [];
  let release: () => void = () => undefined;
  const deletesMayEnd = new Promise<void>((resolve) => (release = resolve));
  const client = {
    query: async (sql: string, params: readonly unknown[] = []) => {
      statements.push(sql.startsWith('WITH deleted') ? 'DELETE' : sql);
      if (sql.startsWith('SELECT min(seq)')) return [{ first: 1, last: planned }];
      if (sql.startsWith('WITH deleted')) {
        await deletesMayEnd;
        return [{ n: Number(params[2]) - Number(params[1]) }];
      }
      if (sql.startsWith('ANALYZE')) release();
      return [];
    },
  } as unknown as SqlClient;
  return { client, statements, releaseDeletes: () => release() };
}

describe('dropSettledPlan', () => {
  it('analyzes the tables a big run wrote while its planned intents are deleted, then vacuums', async () => {
    // The DELETE ends only once ANALYZE was sent: one after the other, this never settles.
    const sql = fakeSql(25_000);
    const results = new SqlRunResults(
      () => sql.client,
      () => Promise.resolve(new Map<string, number>()),
    );
    await expect(results.dropSettledPlan('r1', 25_000)).resolves.toBe(25_000);
    expect(sql.statements).toEqual([
      expect.stringContaining('SELECT min(seq)'),
      'DELETE',
      'ANALYZE synced_hashes, id_map, intent_results, run_unchanged',
      'DELETE',
      'DELETE',
      'VACUUM run_intents',
    ]);
  });

  it('leaves the statistics alone after a run that wrote fewer than 20,000 result rows', async () => {
    const sql = fakeSql(19_999);
    sql.releaseDeletes();
    const results = new SqlRunResults(
      () => sql.client,
      () => Promise.resolve(new Map<string, number>()),
    );
    await results.dropSettledPlan('r1', 19_999);
    expect(sql.statements.filter((s) => s.startsWith('ANALYZE'))).toEqual([]);
  });

  it('counts a run’s result rows without its unchanged keys, which it keeps per chunk', () => {
    // The nightly run of 200,000 users with 1 % changed writes 2,000 result rows.
    expect(resultRowsOf({ unchanged: 198_000, updated: 2_000 })).toBe(2_000);
    expect(resultRowsOf({ created: 19_000, failed: 500, skipped: 500, unchanged: 7 })).toBe(20_000);
  });
});
