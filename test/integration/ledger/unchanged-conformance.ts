import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../../src/model/planned-intent.js';
import type { ConformanceContext } from './ledger-conformance.js';

function planned(key: string, name: string): PlannedIntent {
  return {
    kind: 'user',
    key,
    op: 'upsert',
    plannedAction: 'create',
    params: { client_id: key, 'user[first_name]': name },
    origin: { source: 'users.csv', row: 1, line: 2 },
    dependsOn: [],
    hash: `hash-${key}`,
  };
}

/** What a run stores (docs/ledger.md): unchanged rows as keys, read back as results. */
export function describeUnchangedConformance(context: ConformanceContext): void {
  describe('unchanged rows kept as keys', () => {
    it('reads them back as unchanged results, counted, paged, with the synced params and id', async () => {
      const l = context.ledger();
      const first = await l.createRun({ jobName: 'unch', mode: 'upsert' });
      const keys = Array.from({ length: 1500 }, (_, i) => `unch-${i}`);
      await l.recordPlannedIntents(
        first.id,
        keys.map((key) => planned(key, `N${key}`)),
      );
      await l.recordResults(
        keys.map((key, i) => ({
          runId: first.id,
          kind: 'user' as const,
          key,
          action: 'created' as const,
          hash: `hash-${key}`,
          platformId: 1000 + i,
          params: { client_id: key, 'user[first_name]': `N${key}` },
        })),
      );
      await l.finishRun(first.id, 'completed');

      const night = await l.createRun({ jobName: 'unch', mode: 'upsert' });
      // 1,499 kept unchanged (two rows of keys), one sent again.
      await l.recordUnchanged(
        night.id,
        keys.slice(1).map((key) => ({ kind: 'user' as const, key })),
      );
      await l.recordPlannedIntents(night.id, [planned('unch-0', 'Changed')]);
      await l.recordResults([
        { runId: night.id, kind: 'user', key: 'unch-0', action: 'updated', hash: 'h2', platformId: 1000 },
      ]);
      expect(await l.resultCounts(night.id)).toEqual({ user: { updated: 1, unchanged: 1499 } });
      expect(await l.resultCounts(night.id, { errorCodes: ['X'] })).toEqual({});
      const finished = await l.finishRun(night.id, 'completed');
      expect(finished.counts).toEqual({ updated: 1, unchanged: 1499 });
      // Nothing of them is pending: a resume has nothing to finish.
      expect(await l.pendingIntents(night.id)).toEqual([]);

      const unchanged = await l.results(night.id, { actions: ['unchanged'], limit: 2 });
      expect(unchanged.map((r) => [r.key, r.action, r.platformId, r.params])).toEqual([
        ['unch-1', 'unchanged', 1001, { client_id: 'unch-1', 'user[first_name]': 'Nunch-1' }],
        ['unch-2', 'unchanged', 1002, { client_id: 'unch-2', 'user[first_name]': 'Nunch-2' }],
      ]);
      // Every result, the recorded one first, each key once, across both rows of keys.
      const all = [];
      for await (const result of l.eachResult(night.id)) all.push(result.key);
      expect(all.length).toBe(1500);
      expect(all[0]).toBe('unch-0');
      expect(new Set(all).size).toBe(1500);
      // Paged by the dashboard's search, after the last recorded result.
      const page1 = await l.insights().searchResults(night.id, { limit: 1000 });
      expect(page1.results.length).toBe(1000);
      const page2 = await l.insights().searchResults(night.id, { limit: 1000, afterSeq: page1.next! });
      expect(page2.results.length).toBe(500);
      expect(page2.next).toBeNull();
      expect(new Set([...page1.results, ...page2.results].map((r) => r.key)).size).toBe(1500);
      // One key of a row, as the dashboard's row page asks.
      const [row] = await l.results(night.id, { kinds: ['user'], keys: ['unch-1200'], limit: 1 });
      expect(row).toMatchObject({ key: 'unch-1200', action: 'unchanged', platformId: 2200 });
      // Filters that cannot match an unchanged row do not read them.
      expect(await l.results(night.id, { actions: ['failed'] })).toEqual([]);

      // A key's history names both runs, newest first.
      const history = await l.insights().keyHistory('user', 'unch-7');
      expect(
        history.filter((h) => h.jobName === 'unch').map((h) => [h.result.runId, h.result.action]),
      ).toEqual([
        [night.id, 'unchanged'],
        [first.id, 'created'],
      ]);
      // The first run's keys were handled later: a resume of it must not send them.
      const later = await l.handledLater(first.id);
      expect(later.has('user\u0000unch-7')).toBe(true);
      expect(later.has('user\u0000unch-0')).toBe(true);
    });

    it('drops the planned intents of a completed run that ended in a success, and keeps the failed', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'settled', mode: 'upsert' });
      await l.recordPlannedIntents(run.id, [
        planned('st-ok', 'A'),
        planned('st-bad', 'B'),
        planned('st-left', 'C'),
      ]);
      await l.recordResults([
        {
          runId: run.id,
          kind: 'user',
          key: 'st-ok',
          action: 'created',
          hash: 'h',
          platformId: 9,
          params: { x: '1' },
        },
        { runId: run.id, kind: 'user', key: 'st-bad', action: 'failed', errorCode: 'E', errorMessage: 'no' },
      ]);
      await l.finishRun(run.id, 'completed');
      expect((await l.plannedByResult(run.id, { actions: ['failed'] })).map((p) => p.key)).toEqual([
        'st-bad',
      ]);
      expect((await l.pendingIntents(run.id)).map((p) => p.key)).toEqual(['st-left']);
      expect(await l.countPlanned(run.id)).toBe(2);
      // The synced state still names the person from the result that wrote it.
      expect(Object.fromEntries(await l.syncedParams('user', ['st-ok']))).toEqual({ 'st-ok': { x: '1' } });
      // A stale hash (an audit repair) matches no row, and still names the person last sent.
      await l.staleHashes('user', ['st-ok']);
      const stale = (await l.hashesOf('user', ['st-ok'])).get('st-ok');
      expect(stale).toBeDefined();
      expect(stale).not.toBe('h');
      expect(Object.fromEntries(await l.syncedParams('user', ['st-ok']))).toEqual({ 'st-ok': { x: '1' } });
    });
  });
}
