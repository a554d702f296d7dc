import { describe, expect, it } from 'vitest';
import type { PlannedIntent, PlannedIntentRecord } from '../../model/planned-intent.js';
import type { IntentResultRecord, ResultFilter } from '../../model/result-records.js';
import type { RunRecord } from '../../model/run-record.js';
import type { Intent, IntentKind } from '../../model/intent.js';
import type { PlanLedger } from './build-plan.js';
import { buildPlan } from './build-plan.js';
import { DeleteThresholdError } from './delete-threshold-error.js';
import { CHECK_IN_OUTCOME_UNKNOWN } from '../processors/check-in-processor.js';
import { guardCheckIns, CHECK_IN_HELD_BACK, findLostCheckIns } from './lost-check-ins.js';
import { failedRowKeys, planMirrorDeletes } from './mirror-deletes.js';
import { hashIntent } from './params-hash.js';
import { formatPlanSummary } from './format-plan-summary.js';
import { summarizePlan } from './plan-summary.js';
import type { RowResult } from './sync-plan.js';

const origin = (row: number, source = 'users.csv'): Intent['origin'] => ({ source, row, line: row + 1 });

function user(key: string, row: number): Intent {
  return {
    kind: 'user',
    key,
    op: 'upsert',
    params: { client_id: key, 'user[first_name]': 'A' },
    origin: origin(row),
    dependsOn: [],
  };
}

function checkIn(key: string, row: number): Intent {
  return {
    kind: 'check_in',
    key,
    op: 'upsert',
    params: { check_in_id: key, client_id: 'u1' },
    origin: origin(row, 'check_ins.csv'),
    dependsOn: [],
  };
}

/** A check-in the plan would create, as a resume or a retry holds it. */
function planned(key: string): PlannedIntent {
  return {
    kind: 'check_in',
    key,
    op: 'upsert',
    plannedAction: 'create',
    params: { check_in_id: key },
    origin: origin(1, 'check_ins.csv'),
    dependsOn: [],
    hash: 'h',
  };
}

/** A row that failed the mapping, named by its place as collecting names it. */
function invalidRow(row: number, keptKey?: string): RowResult {
  return {
    kind: 'user',
    key: `@users.csv:${row}`,
    action: 'failed',
    origin: origin(row),
    errorCode: 'EMAIL_INVALID',
    message: `row ${row}: email: "x" is not an e-mail address`,
    ...(keptKey === undefined ? {} : { keptKeys: [{ kind: 'user' as const, key: keptKey }] }),
  };
}

interface StoredRun {
  id: string;
  finished?: boolean;
  failed?: number;
  results?: Array<Pick<IntentResultRecord, 'kind' | 'key' | 'action' | 'errorCode'>>;
  /** Check-ins marked as being sent, without a result (a run cut off by kill -9). */
  markedPending?: string[];
}

/** The ledger as a plan reads it: synced users u1…u4, and runs newest first. */
function fakeLedger(runs: StoredRun[] = [], synced: Intent[] = []): PlanLedger & { resultQueries: string[] } {
  const hashes = new Map(synced.map((i) => [i.key, hashIntent(i.op, i.params)]));
  const resultQueries: string[] = [];
  return {
    resultQueries,
    loadHashes: (kind: IntentKind) => Promise.resolve(kind === 'user' ? new Map(hashes) : new Map()),
    loadIdMap: () => Promise.resolve(new Map()),
    knownKeys: (kind: IntentKind) => Promise.resolve(kind === 'user' ? [...hashes.keys()] : []),
    listRuns: (limit = 20) =>
      Promise.resolve(
        runs.slice(0, limit).map((run, index): RunRecord => ({
          id: run.id,
          seq: runs.length - index,
          jobName: 'j',
          mode: 'upsert',
          status: run.finished === false ? 'running' : 'completed',
          startedAt: new Date(0),
          finishedAt: run.finished === false ? null : new Date(0),
          counts: run.failed ? { failed: run.failed } : {},
          options: {},
          conference: null,
        })),
      ),
    pendingIntents: (runId: string) =>
      Promise.resolve(
        (runs.find((r) => r.id === runId)?.markedPending ?? []).map(
          (key) => ({ kind: 'check_in', key, sendStartedAt: new Date(0) }) as PlannedIntentRecord,
        ),
      ),
    results: (runId: string, filter?: ResultFilter) => {
      resultQueries.push(runId);
      const run = runs.find((r) => r.id === runId);
      const rows = (run?.results ?? []).filter(
        (r) =>
          (!filter?.kinds || filter.kinds.includes(r.kind)) &&
          (!filter?.actions || filter.actions.includes(r.action)),
      );
      return Promise.resolve(rows as IntentResultRecord[]);
    },
  };
}

const lostAnswer = (key: string, code: string = CHECK_IN_OUTCOME_UNKNOWN) => ({
  kind: 'check_in' as const,
  key,
  action: 'failed' as const,
  errorCode: code,
});

describe('mirror mode and rows that failed the mapping', () => {
  const users = [user('u1', 1), user('u2', 2), user('u3', 3), user('u4', 4)];
  const mirror = { jobName: 'held', mode: 'mirror' as const, threshold: { percent: 50 }, force: false };

  it('never deletes a key that a failed row still has', async () => {
    const mirror = await planMirrorDeletes({
      seen: new Map([['user', new Set(['u1', 'u2'])]]),
      rowResults: [invalidRow(3, 'u3')],
      knownKeys: () => Promise.resolve(['u1', 'u2', 'u3', 'u4']),
      threshold: { percent: 50 },
      force: false,
    });
    expect(mirror.deletes.map((d) => d.key)).toEqual(['u4']);
    expect(mirror.held).toBeUndefined();
  });

  it('holds back every delete of the run when a failed row has no readable key, and says why', async () => {
    // u3's row now fails the mapping and u4's row is gone: either could be the failed row.
    const plan = await buildPlan(fakeLedger([], users), {
      ...mirror,
      intents: users.slice(0, 2),
      rowResults: [invalidRow(3)],
    });
    expect(plan.work).toEqual([]);
    expect(plan.heldDeletes).toEqual({
      counts: [{ kind: 'user', deletes: 2, known: 4, allowed: 2 }],
      rows: 1,
      first: origin(3),
    });
    expect(plan.rowResults[0]?.message).toMatch(
      /not an e-mail address \(Mirror mode deleted nothing in this run, 2 planned: this row failed before its key could be read/,
    );
    const text = formatPlanSummary(summarizePlan(plan));
    expect(text).toContain(
      'Mirror deletes held back: 1 row failed before its key could be read (first: users.csv row 3 (line 4)), ' +
        'and any of them may be an object still in the source, so this run deletes nothing (it would delete 2 users).',
    );
  });

  it('holds back rather than aborting when the deletes it would make are above the threshold', async () => {
    const plan = await buildPlan(fakeLedger([], users), {
      ...mirror,
      threshold: { count: 0 },
      intents: users.slice(0, 1),
      rowResults: [invalidRow(2)],
    });
    expect(plan.work).toEqual([]);
    expect(plan.heldDeletes?.counts[0]?.deletes).toBe(3);
  });

  it('still deletes what is gone, within the threshold, when every failed row kept its key', async () => {
    const plan = await buildPlan(fakeLedger([], users), {
      ...mirror,
      intents: users.slice(0, 2),
      rowResults: [invalidRow(3, 'u3')],
    });
    expect(plan.work.map((w) => [w.key, w.plannedAction])).toEqual([['u4', 'delete']]);
    expect(plan.heldDeletes).toBeUndefined();
    await expect(
      buildPlan(fakeLedger([], users), {
        ...mirror,
        threshold: { count: 0 },
        intents: users.slice(0, 2),
        rowResults: [invalidRow(3, 'u3')],
      }),
    ).rejects.toBeInstanceOf(DeleteThresholdError);
  });

  it('keeps nothing for rows a `when:` skipped or for duplicates, which name their key', () => {
    const skipped: RowResult = { ...invalidRow(5), action: 'skipped', errorCode: 'EVSYNC_ROW_SKIPPED' };
    const duplicate: RowResult = { ...invalidRow(6), key: 'u1#row6', errorCode: 'EVSYNC_DUPLICATE_KEY' };
    // A Sessionize row yields an event, a user and a speaker link: it keeps all three.
    const session: RowResult = {
      ...invalidRow(9),
      kind: 'event',
      keptKeys: [
        { kind: 'event', key: 's1' },
        { kind: 'user', key: 'p1' },
        { kind: 'speaker', key: 's1/p1' },
      ],
    };
    const keys = failedRowKeys([skipped, duplicate, invalidRow(7, 'u7'), invalidRow(8), session]);
    expect(keys.kept).toEqual(
      new Map([
        ['user', new Set(['u7', 'p1'])],
        ['event', new Set(['s1'])],
        ['speaker', new Set(['s1/p1'])],
      ]),
    );
    expect(keys.unreadable.map((row) => row.key)).toEqual(['@users.csv:8']);
  });

  it('changes nothing in upsert mode', async () => {
    const plan = await buildPlan(fakeLedger([], users), {
      ...mirror,
      mode: 'upsert',
      intents: users.slice(0, 2),
      rowResults: [invalidRow(3)],
    });
    expect(plan.heldDeletes).toBeUndefined();
    expect(plan.rowResults[0]?.message).toBe(invalidRow(3).message);
  });
});

describe('check-ins whose answer was lost', () => {
  it('finds the newest failure of each key and the run that lost the answer', async () => {
    const ledger = fakeLedger([
      { id: 'r5', failed: 1, results: [lostAnswer('a', CHECK_IN_HELD_BACK)] },
      { id: 'r4' }, // finished without failures: not read
      { id: 'r3', failed: 2, results: [lostAnswer('a'), lostAnswer('b', 'EVSYNC_PLATFORM_422')] },
      { id: 'r2', failed: 1, results: [lostAnswer('b')] },
      { id: 'r1', failed: 1, results: [lostAnswer('c', CHECK_IN_HELD_BACK)] },
    ]);
    const lost = await findLostCheckIns(ledger, ['a', 'b', 'c', 'd']);
    // b's newest failure is the platform's refusal: it is sent again. c was held back in a
    // run whose origin is out of reach: still held, with no run to name.
    expect(lost).toEqual(
      new Map([
        ['a', { runId: 'r3' }],
        ['c', { runId: undefined }],
      ]),
    );
    expect(ledger.resultQueries).toEqual(['r5', 'r3', 'r2', 'r1']);
  });

  it('reads no run at all when the plan creates no check-in', async () => {
    const ledger = fakeLedger([{ id: 'r1', failed: 1, results: [lostAnswer('a')] }]);
    expect(await findLostCheckIns(ledger, [])).toEqual(new Map());
    expect(ledger.resultQueries).toEqual([]);
  });

  it('a resume or retry holds back check-ins posted since or lost by another run, and sends its own lost ones', async () => {
    const ledger = {
      ...fakeLedger([
        { id: 'r3', failed: 1, results: [lostAnswer('lost-later')] },
        { id: 'r2', finished: false, markedPending: ['cut-later'] },
        { id: 'r1', failed: 1, results: [lostAnswer('own')] },
      ]),
      hashesOf: (kind: IntentKind, keys: readonly string[]) =>
        Promise.resolve(new Map(kind === 'check_in' && keys.includes('posted') ? [['posted', 'h']] : [])),
    };
    const work = ['posted', 'lost-later', 'cut-later', 'own', 'fresh'].map(planned);
    const guarded = await guardCheckIns(ledger, work, 'r1');
    expect(guarded.work.map((item) => item.key)).toEqual(['own', 'fresh']);
    expect(guarded.held.map((row) => [row.key, row.errorCode])).toEqual([
      ['posted', 'EVSYNC_CHECK_IN_POSTED_SINCE'],
      ['lost-later', CHECK_IN_HELD_BACK],
      ['cut-later', CHECK_IN_HELD_BACK],
    ]);
    expect(guarded.held[2]?.message).toMatch(/`evsync retry r2 --client-id cut-later`/);
  });

  it('a retry or resume of the run that lost an answer sends it, though later runs held it back', async () => {
    const held = (key: string) => lostAnswer(key, CHECK_IN_HELD_BACK);
    // r1 lost k's answer (a result) and cut off m (a mark); r2 and r3 held both back since.
    const ledger = {
      ...fakeLedger([
        { id: 'r3', failed: 2, results: [held('k'), held('m')] },
        { id: 'r2', failed: 2, results: [held('k'), held('m')] },
        { id: 'r1', finished: false, results: [lostAnswer('k')], markedPending: ['m'] },
      ]),
      hashesOf: () => Promise.resolve(new Map<string, string>()),
    };
    const own = await guardCheckIns(ledger, [planned('k'), planned('m')], 'r1');
    expect(own.work.map((item) => item.key)).toEqual(['k', 'm']);
    // Any other run sees both as lost in r1, as the holds said.
    const other = await guardCheckIns(ledger, [planned('k'), planned('m')], 'r9');
    expect(other.held.map((row) => row.message.match(/(?:lost in run|run) (r\d+)/)?.[1])).toEqual([
      'r1',
      'r1',
    ]);
  });

  it('holds back a check-in marked as being sent in a run cut off and not resumed yet', async () => {
    const ledger = fakeLedger([
      { id: 'r2', finished: false, markedPending: ['cut'] },
      { id: 'r1', failed: 0 },
    ]);
    const plan = await buildPlan(ledger, {
      jobName: 'held',
      intents: [checkIn('cut', 1), checkIn('new', 2)],
      rowResults: [],
      mode: 'upsert',
      threshold: { percent: 10 },
      force: false,
    });
    expect(plan.work.map((w) => w.key)).toEqual(['new']);
    expect(plan.rowResults[0]).toMatchObject({ key: 'cut', errorCode: CHECK_IN_HELD_BACK });
    // Not "lost": the run had no answer recorded yet, and may still have been going.
    expect(plan.rowResults[0]?.message).toMatch(
      /run r2 had started sending this check-in and had no answer recorded.*cut off, or was still going.*`evsync retry r2 --client-id cut --resend-unknown`/,
    );
  });

  it('holds back only check-ins to create whose answer was lost, pointing at evsync retry', async () => {
    const ledger = fakeLedger([
      { id: 'r2', finished: false },
      { id: 'r1', failed: 1, results: [lostAnswer('lost')] },
    ]);
    const plan = await buildPlan(ledger, {
      jobName: 'held',
      intents: [checkIn('lost', 1), checkIn('new', 2)],
      rowResults: [],
      mode: 'upsert',
      threshold: { percent: 10 },
      force: false,
    });
    expect(plan.work.map((w) => w.key)).toEqual(['new']);
    expect(plan.rowResults).toEqual([
      expect.objectContaining({
        kind: 'check_in',
        key: 'lost',
        action: 'failed',
        errorCode: CHECK_IN_HELD_BACK,
        origin: origin(1, 'check_ins.csv'),
      }),
    ]);
    expect(plan.rowResults[0]?.message).toMatch(
      /lost in run r1, so the platform may have it already.*`evsync retry r1 --client-id lost --resend-unknown`/,
    );
    const summary = summarizePlan(plan);
    expect(summary.counts.check_in).toEqual({ create: 1, held: 1 });
    const text = formatPlanSummary(summary);
    expect(text.split('\n')[0]).toBe('kind      create  update  delete  unchanged  invalid  skipped  held');
    expect(text).toContain('1 check-in is held back');
    expect(text).toContain('evsync retry RUN --client-id KEY');
  });

  it('shows no held column when nothing is held', () => {
    const text = formatPlanSummary(
      summarizePlan({ work: [], unchanged: [], rowResults: [invalidRow(1)], deletes: [], planMs: 1 }),
    );
    expect(text.split('\n')[0]).toBe('kind  create  update  delete  unchanged  invalid  skipped');
  });
});
