import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../../src/model/planned-intent.js';
import type { IntentResultInput, ResultFilter } from '../../../src/model/result-records.js';
import { REDACTED } from '../../../src/log/redaction.js';
import type { ConformanceContext } from './ledger-conformance.js';

const PASSWORD = 'user[svc_auth_attributes][password]';

function planned(key: string, extra: Partial<PlannedIntent> = {}): PlannedIntent {
  return {
    kind: 'user',
    key,
    op: 'upsert',
    plannedAction: 'create',
    params: { 'user[first_name]': key, [PASSWORD]: 's3cret-pw' },
    origin: { source: 'users.csv', row: 1, line: 2 },
    dependsOn: [],
    hash: `hash-${key}`,
    ...extra,
  };
}

/** Keys of a Map that start with a test's own prefix (the store is shared by tests). */
function own<V>(map: Map<string, V>, prefix: string): Map<string, V> {
  return new Map([...map].filter(([key]) => key.startsWith(prefix)));
}

export function describeResultConformance(context: ConformanceContext): void {
  describe('planned intents and pending work', () => {
    it('returns the planned intents without a final result, in plan order, secrets redacted', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'pending', mode: 'upsert' });
      await l.recordPlannedIntents(run.id, [
        planned('p-1'),
        planned('p-2', { kind: 'event', params: { 'event[title]': 'Keynote' }, origin: null }),
        planned('p-3', { dependsOn: [{ kind: 'event', clientId: 'p-2' }], plannedAction: 'update' }),
      ]);
      await l.recordResults([{ runId: run.id, kind: 'user', key: 'p-1', action: 'created', platformId: 5 }]);
      const pending = await l.pendingIntents(run.id);
      expect(pending.map((p) => p.key)).toEqual(['p-2', 'p-3']);
      expect(pending[1]).toMatchObject({
        runId: run.id,
        kind: 'user',
        op: 'upsert',
        plannedAction: 'update',
        params: { 'user[first_name]': 'p-3', [PASSWORD]: REDACTED },
        redactedParams: [PASSWORD],
        origin: { source: 'users.csv', row: 1, line: 2 },
        dependsOn: [{ kind: 'event', clientId: 'p-2' }],
        hash: 'hash-p-3',
      });
      expect(pending[0]).toMatchObject({ origin: null, redactedParams: [] });
      expect((await l.pendingIntents(run.id, { kinds: ['event'] })).map((p) => p.key)).toEqual(['p-2']);
      const page = await l.pendingIntents(run.id, { limit: 1 });
      expect(page.map((p) => p.key)).toEqual(['p-2']);
      const next = await l.pendingIntents(run.id, { afterSeq: page[0]?.seq ?? 0 });
      expect(next.map((p) => p.key)).toEqual(['p-3']);
    });

    it('reads pending intents by kinds and keys, as distributed workers batch their reads', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'pending-keys', mode: 'upsert' });
      await l.recordPlannedIntents(run.id, [
        planned('k-1'),
        planned('k-2', { kind: 'event', params: { 'event[title]': 'Keynote' } }),
        planned('k-3'),
        planned('k-4'),
      ]);
      await l.recordResults([{ runId: run.id, kind: 'user', key: 'k-3', action: 'created', platformId: 7 }]);
      const read = async (filter: Parameters<typeof l.pendingIntents>[1]): Promise<string[]> =>
        (await l.pendingIntents(run.id, filter)).map((p) => `${p.kind}:${p.key}`);
      expect(
        await read({ kinds: ['user', 'event'], keys: ['k-4', 'k-3', 'k-2', 'k-1', 'k-4', 'none'] }),
      ).toEqual(['user:k-1', 'event:k-2', 'user:k-4']);
      expect(await read({ kinds: ['user'], keys: ['k-2', 'k-4'] })).toEqual(['user:k-4']);
      expect(await read({ kinds: ['user'], keys: ['k-1', 'k-4'], limit: 1 })).toEqual(['user:k-1']);
      expect((await l.pendingIntents(run.id, { kinds: ['user'], keys: ['k-1'] }))[0]).toMatchObject({
        params: { 'user[first_name]': 'k-1', [PASSWORD]: REDACTED },
        hash: 'hash-k-1',
      });
    });

    it('reads ahead the intents of the same kinds planned after the last pending asked key', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'pending-ahead', mode: 'upsert' });
      const other = await l.createRun({ jobName: 'pending-ahead-other', mode: 'upsert' });
      await l.recordPlannedIntents(run.id, [planned('a-1'), planned('a-2'), planned('a-3')]);
      // Another run's plan, recorded in between, shares the sequence.
      await l.recordPlannedIntents(other.id, [planned('a-4'), planned('a-5')]);
      await l.recordPlannedIntents(run.id, [
        planned('a-4'),
        planned('e-1', { kind: 'event', params: { 'event[title]': 'Keynote' } }),
        planned('a-5'),
        planned('a-6'),
      ]);
      await l.recordResults([
        { runId: run.id, kind: 'user', key: 'a-3', action: 'created', platformId: 3 },
        { runId: run.id, kind: 'user', key: 'a-6', action: 'created', platformId: 6 },
      ]);
      const read = async (filter: Parameters<typeof l.pendingIntents>[1]): Promise<string[]> =>
        (await l.pendingIntents(run.id, filter)).map((p) => `${p.kind}:${p.key}`);
      // The asked ones if pending, then the run's next intents of the asked kinds, in plan
      // order, recorded or not (a-3).
      expect(await read({ kinds: ['user'], keys: ['a-2', 'a-1'], ahead: 8 })).toEqual([
        'user:a-1',
        'user:a-2',
        'user:a-3',
        'user:a-4',
        'user:a-5',
        'user:a-6',
      ]);
      expect(await read({ kinds: ['user'], keys: ['a-4'], ahead: 1 })).toEqual(['user:a-4', 'user:a-5']);
      expect(await read({ kinds: ['event'], keys: ['e-1'], ahead: 8 })).toEqual(['event:e-1']);
      // Nothing asked is pending: nothing is read ahead either.
      expect(await read({ kinds: ['user'], keys: ['a-3'], ahead: 8 })).toEqual([]);
    });

    it('stores text PostgreSQL cannot hold (NUL, lone surrogates) with U+FFFD instead of failing the batch', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'unstorable', mode: 'upsert' });
      await l.recordPlannedIntents(run.id, [
        planned('nul-1', { params: { 'user[last_name]': 'Mül\u0000ler', 'user[bio]': 'half \ud800 pair' } }),
        planned('nul-2'),
      ]);
      await l.recordResults([
        { runId: run.id, kind: 'user', key: 'nul-1', action: 'failed', errorMessage: 'echo: a\u0000b' },
        { runId: run.id, kind: 'user', key: 'nul-2', action: 'created', platformId: 9 },
      ]);
      const [stored] = await l.plannedByResult(run.id, { actions: ['failed'] });
      expect(stored?.params).toMatchObject({
        'user[last_name]': 'Mül\uFFFDler',
        'user[bio]': 'half \uFFFD pair',
      });
      const results = await l.results(run.id);
      expect(results.map((r) => [r.key, r.action, r.errorMessage])).toEqual([
        ['nul-1', 'failed', 'echo: a\uFFFDb'],
        ['nul-2', 'created', null],
      ]);
    });

    it('marks planned intents as being sent: pending work shows the first mark, other intents none', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'marks', mode: 'upsert' });
      await l.recordPlannedIntents(run.id, [
        planned('s-1', { kind: 'check_in' }),
        planned('s-2', { kind: 'check_in' }),
        planned('s-3'),
      ]);
      const before = Date.now();
      await l.markSendStarted(run.id, [
        { kind: 'check_in', key: 's-1' },
        { kind: 'user', key: 's-2' },
        { kind: 'check_in', key: 'not-planned' },
      ]);
      const first = (await l.pendingIntents(run.id)).find((p) => p.key === 's-1')?.sendStartedAt;
      expect(first?.getTime()).toBeGreaterThanOrEqual(before - 1000);
      await new Promise((r) => setTimeout(r, 5));
      await l.markSendStarted(run.id, [{ kind: 'check_in', key: 's-1' }]);
      const pending = await l.pendingIntents(run.id);
      expect(pending.map((p) => [p.key, p.sendStartedAt?.getTime() ?? null])).toEqual([
        ['s-1', first?.getTime()],
        ['s-2', null],
        ['s-3', null],
      ]);
      await l.markSendStarted(run.id, []);
      expect((await l.pendingIntents(run.id, { sendStarted: true })).map((p) => p.key)).toEqual(['s-1']);
      // A call the platform refused outright (401) gives its mark back; another run's is kept.
      const other = await l.createRun({ jobName: 'marks', mode: 'upsert' });
      await l.recordPlannedIntents(other.id, [planned('s-1', { kind: 'check_in' })]);
      await l.markSendStarted(other.id, [{ kind: 'check_in', key: 's-1' }]);
      await l.unmarkSendStarted(run.id, { kind: 'check_in', key: 's-1' });
      expect(await l.pendingIntents(run.id, { sendStarted: true })).toEqual([]);
      expect((await l.pendingIntents(other.id, { sendStarted: true })).map((p) => p.key)).toEqual(['s-1']);
    });

    it('replaces a re-planned (kind, key) instead of duplicating it, across and within batches', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'replan', mode: 'upsert' });
      await l.recordPlannedIntents(run.id, [planned('r-1'), planned('r-1', { hash: 'second' })]);
      await l.recordPlannedIntents(run.id, [planned('r-1', { hash: 'third' })]);
      const pending = await l.pendingIntents(run.id);
      expect(pending).toHaveLength(1);
      expect(pending[0]?.hash).toBe('third');
      expect(await l.countPlanned(run.id)).toBe(1);
    });

    it("counts a run's recorded plan, results or not; refuses a plan of an unknown run", async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'count', mode: 'upsert' });
      expect(await l.countPlanned(run.id)).toBe(0);
      await l.recordPlannedIntents(run.id, [planned('c-1'), planned('c-2'), planned('c-3')]);
      await l.recordResults([{ runId: run.id, kind: 'user', key: 'c-1', action: 'created' }]);
      expect(await l.countPlanned(run.id)).toBe(3);
      await expect(l.recordPlannedIntents('no-such-run', [planned('c-4')])).rejects.toMatchObject({
        code: 'EVSYNC_LEDGER_UNKNOWN_RUN',
      });
      expect(await l.countPlanned('no-such-run')).toBe(0);
    });

    it('records thousands of planned intents in one call', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'many', mode: 'upsert' });
      await l.recordPlannedIntents(
        run.id,
        Array.from({ length: 2500 }, (_, i) => planned(`m-${i}`)),
      );
      const pending = await l.pendingIntents(run.id);
      expect(pending).toHaveLength(2500);
      expect(pending[2499]?.key).toBe('m-2499');
    });

    it('reopens the planned intents whose result matches: results and send marks gone, other rows kept', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'reopen', mode: 'upsert' });
      await l.recordPlannedIntents(run.id, [
        planned('o-1', { kind: 'check_in' }),
        planned('o-2'),
        planned('o-3'),
      ]);
      await l.markSendStarted(run.id, [
        { kind: 'check_in', key: 'o-1' },
        { kind: 'user', key: 'o-3' },
      ]);
      const down = { action: 'failed', errorCode: 'DOWN' } as const;
      await l.recordResults([
        { runId: run.id, kind: 'check_in', key: 'o-1', ...down },
        { runId: run.id, kind: 'user', key: 'o-2', action: 'failed', errorCode: 'INVALID' },
        { runId: run.id, kind: 'user', key: 'o-3', action: 'created', platformId: 3 },
        // A row that failed in mapping was never planned: its result stays.
        { runId: run.id, kind: 'user', key: 'o-unplanned', ...down },
      ]);
      expect(await l.reopenIntents(run.id, { actions: ['failed'], errorCodes: ['DOWN'] })).toBe(1);
      const pending = await l.pendingIntents(run.id);
      expect(pending.map((p) => [p.key, p.sendStartedAt])).toEqual([['o-1', null]]);
      expect((await l.results(run.id)).map((r) => r.key).sort()).toEqual(['o-2', 'o-3', 'o-unplanned']);
      expect(await l.reopenIntents(run.id, { actions: ['failed'], errorCodes: ['DOWN'] })).toBe(0);
    });

    it('lists the planned intents whose final result matches a filter (failed, by kind, key, code, time)', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'failed', mode: 'upsert' });
      await l.recordPlannedIntents(run.id, [
        planned('f-1'),
        planned('f-2'),
        planned('f-3', { kind: 'event' }),
      ]);
      await l.recordResults([
        {
          runId: run.id,
          kind: 'user',
          key: 'f-1',
          action: 'failed',
          httpStatus: 422,
          errorCode: 'PLATFORM_422',
        },
        { runId: run.id, kind: 'user', key: 'f-2', action: 'created', platformId: 1 },
        { runId: run.id, kind: 'event', key: 'f-3', action: 'failed', httpStatus: 500 },
      ]);
      const failed = (filter: Omit<ResultFilter, 'actions'> = {}) =>
        l.plannedByResult(run.id, { actions: ['failed'], ...filter });
      expect((await failed()).map((p) => p.key)).toEqual(['f-1', 'f-3']);
      expect((await failed({ kinds: ['event'] })).map((p) => p.key)).toEqual(['f-3']);
      expect((await failed({ keys: ['f-1', 'f-2'] })).map((p) => p.key)).toEqual(['f-1']);
      expect((await failed({ errorCodes: ['PLATFORM_422'] })).map((p) => p.key)).toEqual(['f-1']);
      expect(await failed({ since: new Date(Date.now() + 60_000) })).toEqual([]);
      expect((await l.plannedByResult(run.id, { actions: ['created'] })).map((p) => p.key)).toEqual(['f-2']);
    });
  });

  describe('results', () => {
    it('keeps one final result per (run, kind, key): the last one wins, within and across batches', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'final', mode: 'upsert' });
      const base = { runId: run.id, kind: 'user', key: 'final-1' } as const;
      await l.recordResults([
        { ...base, action: 'failed', errorMessage: 'first' },
        { ...base, action: 'failed', errorMessage: 'second', attempts: 2 },
      ]);
      await l.recordResults([{ ...base, action: 'updated', platformId: 9, attempts: 3, durationMs: 12.6 }]);
      const results = await l.results(run.id);
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({
        action: 'updated',
        platformId: 9,
        attempts: 3,
        durationMs: 13,
        errorMessage: null,
        origin: null,
        params: {},
      });
      expect(results[0]?.recordedAt).toBeInstanceOf(Date);
    });

    it('stores every field, platform ids as numbers, params and URLs in messages redacted', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'fields', mode: 'upsert' });
      await l.recordResults([
        {
          runId: run.id,
          kind: 'user',
          key: 'fields-1',
          action: 'attached',
          origin: { source: 'users.csv', row: 41, line: 43 },
          platformId: 2 ** 40 + 7,
          httpStatus: 203,
          errorCode: 'X_CODE',
          errorMessage: 'lookup via postgres://admin:hunter2@db.example.com/x failed',
          attempts: 2,
          durationMs: 130,
          params: { 'user[email]': 'a@example.com', [PASSWORD]: 'hunter2', sig: 'abcdef' },
        },
      ]);
      const [result] = await l.results(run.id);
      expect(result).toMatchObject({
        kind: 'user',
        key: 'fields-1',
        action: 'attached',
        origin: { source: 'users.csv', row: 41, line: 43 },
        platformId: 2 ** 40 + 7,
        httpStatus: 203,
        errorCode: 'X_CODE',
        attempts: 2,
        durationMs: 130,
        params: { 'user[email]': 'a@example.com', [PASSWORD]: REDACTED, sig: REDACTED },
      });
      expect(typeof result?.platformId).toBe('number');
      expect(result?.errorMessage).not.toContain('hunter2');
      expect(JSON.stringify(await l.results(run.id))).not.toContain('hunter2');
    });

    it('filters by action, kind, key, time, and pages by seq', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'filter', mode: 'upsert' });
      const rows: IntentResultInput[] = [
        { runId: run.id, kind: 'user', key: 'q-1', action: 'created' },
        { runId: run.id, kind: 'user', key: 'q-2', action: 'failed' },
        { runId: run.id, kind: 'event', key: 'q-3', action: 'failed' },
        { runId: run.id, kind: 'event', key: 'q-4', action: 'skipped' },
      ];
      await l.recordResults(rows);
      const keys = async (filter: Parameters<typeof l.results>[1]): Promise<string[]> =>
        (await l.results(run.id, filter)).map((r) => r.key);
      expect(await keys({ actions: ['failed'] })).toEqual(['q-2', 'q-3']);
      expect(await keys({ actions: ['failed', 'skipped'], kinds: ['event'] })).toEqual(['q-3', 'q-4']);
      expect(await keys({ keys: ['q-4', 'q-1'] })).toEqual(['q-1', 'q-4']);
      expect(await keys({ since: new Date(Date.now() - 60_000) })).toHaveLength(4);
      expect(await keys({ since: new Date(Date.now() + 60_000) })).toEqual([]);
      const first = await l.results(run.id, { limit: 2 });
      expect(first.map((r) => r.key)).toEqual(['q-1', 'q-2']);
      expect(await keys({ afterSeq: first[1]?.seq ?? 0 })).toEqual(['q-3', 'q-4']);
      expect(await l.resultCounts(run.id)).toEqual({
        user: { created: 1, failed: 1 },
        event: { failed: 1, skipped: 1 },
      });
      // A distributed coordinator counts what its workers wrote, apart from its planner's results.
      expect(await l.resultCounts(run.id, { byWorkers: true })).toEqual({});
      await l.recordResults([{ ...rows[2]!, action: 'updated', worker: 'vm:42' }]);
      expect(await l.resultCounts(run.id, { byWorkers: true })).toEqual({ event: { updated: 1 } });
      expect(await l.results('no-such-run')).toEqual([]);
    });

    it('iterates every result of a big run in order, page after page', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'iterate', mode: 'upsert' });
      await l.recordResults(
        Array.from({ length: 2345 }, (_, i) => ({
          runId: run.id,
          kind: 'user' as const,
          key: `it-${i}`,
          action: 'created' as const,
        })),
      );
      const seen: string[] = [];
      for await (const result of l.eachResult(run.id)) seen.push(result.key);
      expect(seen).toHaveLength(2345);
      expect(seen[0]).toBe('it-0');
      expect(seen[2344]).toBe('it-2344');
      let failed = 0;
      for await (const result of l.eachResult(run.id, { actions: ['failed'] })) failed += result ? 1 : 0;
      expect(failed).toBe(0);
    });

    it('rejects a result of an unknown run and writes nothing of its batch', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'atomic', mode: 'upsert' });
      await expect(
        l.recordResults([
          { runId: run.id, kind: 'user', key: 'atomic-1', action: 'created', hash: 'h', platformId: 1 },
          { runId: 'no-such-run', kind: 'user', key: 'atomic-2', action: 'created' },
        ]),
      ).rejects.toThrow();
      expect(await l.results(run.id)).toEqual([]);
      expect(own(await l.loadHashes('user'), 'atomic-')).toEqual(new Map());
    });
  });

  describe('hashes and the id map', () => {
    it('names the non-empty params synced last for a key, from the run that wrote its hash; a retired key has none', async () => {
      const l = context.ledger();
      const plan = (key: string, params: Record<string, string>) => ({
        kind: 'user' as const,
        key,
        op: 'upsert' as const,
        plannedAction: 'create' as const,
        params,
        origin: null,
        dependsOn: [],
        hash: `h-${key}`,
      });
      const first = await l.createRun({ jobName: 'names', mode: 'mirror' });
      await l.recordPlannedIntents(first.id, [
        plan('sn-1', {
          client_id: 'sn-1',
          'user[first_name]': 'A',
          'user[svc_auth_attributes][password]': 'secret',
        }),
        plan('sn-2', { client_id: 'sn-2', 'user[salutation]': '' }),
      ]);
      await l.recordResults([
        { runId: first.id, kind: 'user', key: 'sn-1', action: 'created', hash: 'a', platformId: 1 },
        { runId: first.id, kind: 'user', key: 'sn-2', action: 'created', hash: 'b', platformId: 2 },
      ]);
      const names = await l.syncedParamNames('user', ['sn-1', 'sn-2', 'sn-none']);
      expect(Object.fromEntries(names)).toEqual({
        'sn-1': ['client_id', 'user[first_name]', 'user[svc_auth_attributes][password]'],
        'sn-2': ['client_id'],
      });
      const second = await l.createRun({ jobName: 'names', mode: 'mirror' });
      await l.recordResults([
        { runId: second.id, kind: 'user', key: 'sn-1', action: 'retired', platformId: 1 },
      ]);
      expect([...(await l.syncedParamNames('user', ['sn-1'])).keys()]).toEqual([]);
      expect(own(await l.loadIdMap('user'), 'sn-1')).toEqual(new Map());
    });

    it('keeps the hash and id after a success, leaves them after a failure, removes them after a delete', async () => {
      const l = context.ledger();
      const first = await l.createRun({ jobName: 'hash', mode: 'mirror' });
      await l.recordResults([
        { runId: first.id, kind: 'user', key: 'h-1', action: 'created', platformId: 101, hash: 'v1' },
        { runId: first.id, kind: 'user', key: 'h-2', action: 'created', platformId: 102, hash: 'v1' },
        { runId: first.id, kind: 'user', key: 'h-3', action: 'failed', hash: 'v1' },
        { runId: first.id, kind: 'user', key: 'h-4', action: 'skipped', hash: 'v1' },
      ]);
      expect(own(await l.loadHashes('user'), 'h-')).toEqual(
        new Map([
          ['h-1', 'v1'],
          ['h-2', 'v1'],
        ]),
      );
      expect(own(await l.loadIdMap('user'), 'h-')).toEqual(
        new Map([
          ['h-1', 101],
          ['h-2', 102],
        ]),
      );

      const second = await l.createRun({ jobName: 'hash', mode: 'mirror' });
      await l.recordResults([
        { runId: second.id, kind: 'user', key: 'h-1', action: 'failed', hash: 'v2', platformId: 999 },
        { runId: second.id, kind: 'user', key: 'h-2', action: 'deleted', platformId: 102 },
        { runId: second.id, kind: 'user', key: 'h-3', action: 'updated', hash: 'v2', platformId: 103 },
      ]);
      expect(own(await l.loadHashes('user'), 'h-')).toEqual(
        new Map([
          ['h-1', 'v1'],
          ['h-3', 'v2'],
        ]),
      );
      expect(own(await l.loadIdMap('user'), 'h-')).toEqual(
        new Map([
          ['h-1', 101],
          ['h-3', 103],
        ]),
      );
      expect(await l.getPlatformId('user', 'h-2')).toBeUndefined();
      expect(await l.getPlatformId('user', 'h-3')).toBe(103);
    });

    it('groups the client_ids that one platform id of a conference shares', async () => {
      const base = context.ledger();
      // A conference of its own: other tests' users share platform ids in the default one.
      const l = base.forConference(await base.conferenceFor(`https://shared-${Date.now()}.example.org`, 1));
      await l.setPlatformIds([
        { kind: 'user', clientId: 'T-1', platformId: 7 },
        { kind: 'user', clientId: 'C-1', platformId: 7 },
        { kind: 'user', clientId: 'S-1', platformId: 7 },
        { kind: 'user', clientId: 'T-2', platformId: 8 },
        { kind: 'event', clientId: 'E-1', platformId: 8 },
        { kind: 'event', clientId: 'E-2', platformId: 8 },
      ]);
      expect(await l.keysSharingIds('user')).toEqual([['C-1', 'S-1', 'T-1']]);
      expect(await l.keysSharingIds('event')).toEqual([['E-1', 'E-2']]);
    });

    it('gives the id map and the hash tails back page by page in key order, past a page of 20,000', async () => {
      const l = context.ledger();
      const count = 20_003;
      await l.setPlatformIds(
        Array.from({ length: count }, (_, i) => ({
          kind: 'user' as const,
          clientId: `pg-${i}`,
          platformId: i + 1,
        })),
      );
      await l.setPlatformIds([{ kind: 'event', clientId: 'pg-0', platformId: 5 }]);
      const pages: Array<Array<[string, number]>> = [];
      for await (const page of l.idPages('user')) pages.push(page.filter(([key]) => key.startsWith('pg-')));
      expect(pages.length).toBeGreaterThanOrEqual(2);
      const keys = pages.flat().map(([key]) => key);
      expect(keys.length).toBe(count);
      expect(new Set(keys).size).toBe(count);
      // Each page continues where the one before ended: client_ids ascend across pages.
      expect(keys).toEqual([...keys].sort());
      expect(new Map(pages.flat()).get('pg-20002')).toBe(20_003);
      expect((await l.loadIdMap('user')).get('pg-20002')).toBe(20_003);
      // What an id cache fetches per chunk: only the keys asked, of the kind asked, past 5,000 a statement.
      const asked = [...Array.from({ length: 6_000 }, (_, i) => `pg-${i * 3}`), 'pg-none'];
      const found = await l.platformIdsOf('user', asked);
      expect(found.size).toBe(6_000);
      expect(found.get('pg-17997')).toBe(17_998);
      expect(found.has('pg-none')).toBe(false);
      expect([...(await l.platformIdsOf('event', ['pg-0', 'pg-1']))]).toEqual([['pg-0', 5]]);

      const run = await l.createRun({ jobName: 'tails', mode: 'upsert' });
      await l.setHashes(
        Array.from({ length: count }, (_, i) => ({
          kind: 'user' as const,
          key: `pg-${i}`,
          hash: `${'0'.repeat(40)}${String(i).padStart(24, '0')}`,
          runId: run.id,
        })),
      );
      // Hashes that end in no 16 hex digits: an erased one, one shorter than a tail.
      await l.setHashes([
        { kind: 'user', key: 'no-hex-erased', hash: '[erased by migration 4]', runId: run.id },
        { kind: 'user', key: 'no-hex-short', hash: 'abc', runId: run.id },
      ]);
      const dashes: Array<[string, string]> = [];
      const tails: Array<[string, string]> = [];
      for await (const page of l.hashTails('user'))
        page.keys.forEach((key, i) => {
          expect(page.tails.length).toBe(16 * page.keys.length);
          const tail = page.tails.slice(16 * i, 16 * i + 16);
          if (key.startsWith('pg-')) tails.push([key, tail]);
          if (key.startsWith('no-hex-')) dashes.push([key, tail]);
        });
      expect(dashes).toEqual([
        ['no-hex-erased', '-'.repeat(16)],
        ['no-hex-short', '-'.repeat(16)],
      ]);
      expect(tails.length).toBe(count);
      expect(tails.map(([key]) => key)).toEqual(keys);
      expect(new Map(tails).get('pg-20002')).toBe('20002'.padStart(16, '0'));
    });

    it('sets, loads and removes ids and hashes in batches, per kind', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'maps', mode: 'upsert' });
      await l.setPlatformIds([
        ...Array.from({ length: 1500 }, (_, i) => ({
          kind: 'event' as const,
          clientId: `e-${i}`,
          platformId: i + 1,
        })),
        { kind: 'event', clientId: 'e-0', platformId: 77 },
        { kind: 'user', clientId: 'e-0', platformId: 88 },
      ]);
      const events = own(await l.loadIdMap('event'), 'e-');
      expect(events.size).toBe(1500);
      expect(events.get('e-0')).toBe(77);
      expect(await l.getPlatformId('user', 'e-0')).toBe(88);
      await l.removePlatformIds('event', ['e-0', 'e-1', 'e-unknown']);
      expect(own(await l.loadIdMap('event'), 'e-').size).toBe(1498);

      await l.setHashes([
        { kind: 'speaker', key: 'e-9/u-1', hash: 'a', runId: run.id },
        { kind: 'speaker', key: 'e-9/u-2', hash: 'b', runId: run.id },
        { kind: 'speaker', key: 'e-9/u-2', hash: 'c', runId: run.id },
      ]);
      expect(own(await l.loadHashes('speaker'), 'e-9/')).toEqual(
        new Map([
          ['e-9/u-1', 'a'],
          ['e-9/u-2', 'c'],
        ]),
      );
      // Keys another job synced, and ids without a synced hash, are not this job's to delete.
      const elsewhere = await l.createRun({ jobName: 'other-job', mode: 'mirror' });
      await l.setHashes([{ kind: 'speaker', key: 'e-9/u-4', hash: 'd', runId: elsewhere.id }]);
      await l.setPlatformIds([{ kind: 'speaker', clientId: 'e-9/u-3', platformId: 3 }]);
      expect((await l.knownKeys('speaker', 'maps')).filter((k) => k.startsWith('e-9/'))).toEqual([
        'e-9/u-1',
        'e-9/u-2',
      ]);
      expect(await l.knownKeys('speaker', 'other-job')).toEqual(['e-9/u-4']);
      // What later runs of the same job (retries aside) ended with a success or a delete.
      const earlier = await l.createRun({ jobName: 'handled', mode: 'upsert' });
      const later = await l.createRun({ jobName: 'handled', mode: 'upsert' });
      const retry = await l.createRun({
        jobName: 'handled',
        mode: 'upsert',
        options: { retryOf: earlier.id },
      });
      const retryOfLater = await l.createRun({
        jobName: 'handled',
        mode: 'upsert',
        options: { retryOf: later.id },
      });
      const otherJob = await l.createRun({ jobName: 'not-handled', mode: 'upsert' });
      await l.recordResults([
        { runId: later.id, kind: 'user', key: 'hl-done', action: 'unchanged' },
        { runId: later.id, kind: 'user', key: 'hl-gone', action: 'deleted' },
        { runId: later.id, kind: 'user', key: 'hl-failed', action: 'failed' },
        { runId: retry.id, kind: 'user', key: 'hl-retried', action: 'created' },
        { runId: retryOfLater.id, kind: 'user', key: 'hl-later-retried', action: 'updated' },
        { runId: otherJob.id, kind: 'user', key: 'hl-other', action: 'created' },
      ]);
      // A retry of `earlier` carries its content; one of `later` carries newer content.
      expect([...(await l.handledLater(earlier.id))].sort()).toEqual([
        'user\u0000hl-done',
        'user\u0000hl-gone',
        'user\u0000hl-later-retried',
      ]);
      expect(await l.handledLater(later.id)).toEqual(new Set());
      await l.removeHashes('speaker', ['e-9/u-1']);
      expect((await l.knownKeys('speaker', 'maps')).filter((k) => k.startsWith('e-9/'))).toEqual(['e-9/u-2']);
      expect(own(await l.loadHashes('user'), 'e-9/')).toEqual(new Map());
    });
  });

  describe('the batched result writer', () => {
    it('writes full batches at once and a partial batch after the interval, then on close', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'writer', mode: 'upsert' });
      const writer = l.resultWriter({ batchSize: 100, flushIntervalMs: 30 });
      for (let i = 0; i < 250; i += 1) {
        await writer.write({
          runId: run.id,
          kind: 'user',
          key: `w-${i}`,
          action: 'created',
          hash: 'x',
          platformId: i,
        });
      }
      await writer.flush();
      expect(writer.written).toBe(250);
      await writer.write({ runId: run.id, kind: 'user', key: 'w-late', action: 'failed' });
      expect(writer.buffered).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(writer.buffered).toBe(0);
      expect((await l.results(run.id, { actions: ['failed'] })).map((r) => r.key)).toEqual(['w-late']);
      await writer.write({ runId: run.id, kind: 'user', key: 'w-last', action: 'skipped' });
      await writer.close();
      expect(writer.written).toBe(252);
      expect(await l.resultCounts(run.id)).toEqual({ user: { created: 250, failed: 1, skipped: 1 } });
      await expect(
        writer.write({ runId: run.id, kind: 'user', key: 'w-x', action: 'created' }),
      ).rejects.toMatchObject({
        code: 'EVSYNC_LEDGER_CLOSED',
      });
    });

    it('reports a failed flush with a retryable ledger error', async () => {
      const writer = context.ledger().resultWriter({ batchSize: 10 });
      await writer.write({ runId: 'no-such-run', kind: 'user', key: 'bad', action: 'created' });
      await expect(writer.flush()).rejects.toMatchObject({ code: 'EVSYNC_LEDGER_WRITE', retryable: true });
      await expect(writer.close()).rejects.toMatchObject({ code: 'EVSYNC_LEDGER_WRITE' });
    });
  });
}
