import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '../../../src/ledger/ledger.js';
import type { SqlClient } from '../../../src/ledger/sql-client.js';
import { describeInsightsConformance } from './insights-conformance.js';
import { describePruneConformance } from './prune-conformance.js';
import { describeRemovedKeysConformance } from './removed-keys-conformance.js';
import { describeNoticesConformance } from './notices-conformance.js';
import { describeResultConformance } from './result-conformance.js';
import { describeSchemaConformance } from './schema-conformance.js';
import { describeUnchangedConformance } from './unchanged-conformance.js';

/**
 * One store (a PGlite folder, or a PostgreSQL schema) per suite. `openLedger` and
 * `openClient` open that same store again on every call.
 */
export interface LedgerFixture {
  openLedger(): Promise<Ledger>;
  /** A raw SQL client on the store, to check migrations below the interface. */
  openClient(): Promise<SqlClient>;
  /** Whether several ledgers may be open on the store at once (PostgreSQL yes, PGlite no). */
  sharedAccess: boolean;
  /** A fresh, empty store of the same kind (for the concurrent-open test). */
  fresh(): Promise<LedgerFixture>;
  cleanup(): Promise<void>;
}

export interface ConformanceContext {
  fixture: () => LedgerFixture;
  ledger: () => Ledger;
  /** Closes the suite's ledger and opens the store again (e.g. to check durability). */
  reopen: () => Promise<Ledger>;
}

/**
 * The behaviour every Ledger adapter must have (in the manner of BullMQ's adapter
 * conformance tests). Tests share one store, so each uses its own keys and runs.
 */
export function describeLedgerConformance(
  name: string,
  createFixture: () => Promise<LedgerFixture>,
  options: { skip?: boolean } = {},
): void {
  describe.skipIf(options.skip === true)(`Ledger conformance: ${name}`, () => {
    let fixture: LedgerFixture | undefined;
    let ledger: Ledger | undefined;
    const context: ConformanceContext = {
      fixture: () => defined(fixture),
      ledger: () => defined(ledger),
      reopen: async () => {
        await ledger?.close();
        ledger = undefined;
        ledger = await defined(fixture).openLedger();
        return ledger;
      },
    };

    beforeAll(async () => {
      fixture = await createFixture();
      ledger = await fixture.openLedger();
    });

    afterAll(async () => {
      await ledger?.close();
      await fixture?.cleanup();
    });

    describe('runs', () => {
      it('creates a running run with a readable, sortable id and reads it back', async () => {
        const run = await context
          .ledger()
          .createRun({ jobName: 'nightly', mode: 'mirror', options: { rate: 20 } });
        expect(run.id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/);
        expect(run).toMatchObject({
          jobName: 'nightly',
          mode: 'mirror',
          status: 'running',
          finishedAt: null,
          counts: {},
        });
        expect(run.options).toEqual({ rate: 20 });
        expect(await context.ledger().getRun(run.id)).toEqual(run);
        expect(await context.ledger().getRun('no-such-run')).toBeUndefined();
      });

      it('lets one holder claim a run at a time, across every ledger open on the store', async () => {
        const l = context.ledger();
        const run = await l.createRun({ jobName: 'claimed', mode: 'upsert' });
        const other = await l.createRun({ jobName: 'claimed', mode: 'upsert' });
        const release = await l.claimRun(run.id);
        await expect(l.claimRun(run.id)).rejects.toMatchObject({
          code: 'EVSYNC_RUN_BUSY',
          message: expect.stringContaining(`Run ${run.id} is being worked on by another evsync process`),
        });
        if (context.fixture().sharedAccess) {
          const second = await context.fixture().openLedger();
          try {
            await expect(second.claimRun(run.id)).rejects.toMatchObject({ code: 'EVSYNC_RUN_BUSY' });
          } finally {
            await second.close();
          }
        }
        const releaseOther = await l.claimRun(other.id);
        await release();
        await (
          await l.claimRun(run.id)
        )();
        await releaseOther();
      });

      it('lets one holder lock a job at a time, naming the run it works on to the others; --wait waits', async () => {
        const l = context.ledger();
        const job = `locked-${Date.now()}`;
        const lock = await l.lockJob(job);
        const run = await l.createRun({ jobName: job, mode: 'upsert' });
        await lock.holding(run.id);
        await expect(l.lockJob(job)).rejects.toMatchObject({
          code: 'EVSYNC_JOB_BUSY',
          message: expect.stringMatching(
            new RegExp(
              `^Job "${job}" is already being run by run ${run.id} \\(process ${process.pid} on .*--wait.*kill ${process.pid}`,
            ),
          ),
        });
        const other = await l.lockJob(`${job}-other`);
        await other.release();
        if (context.fixture().sharedAccess) {
          const second = await context.fixture().openLedger();
          try {
            await expect(second.lockJob(job)).rejects.toMatchObject({ code: 'EVSYNC_JOB_BUSY' });
          } finally {
            await second.close();
          }
        }
        const told: string[] = [];
        const waited = l.lockJob(job, { wait: (holder) => told.push(holder) });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(told).toHaveLength(1);
        expect(told[0]).toMatch(
          new RegExp(`^job "${job}" is being run by run ${run.id} \\(process ${process.pid} on `),
        );
        const stop = new AbortController();
        const givenUp = l.lockJob(job, { wait: () => undefined, signal: stop.signal });
        await new Promise((resolve) => setTimeout(resolve, 200));
        stop.abort();
        await expect(givenUp).rejects.toMatchObject({
          code: 'EVSYNC_JOB_BUSY',
          message: expect.stringContaining(`Stopped while waiting for job "${job}"`),
        });
        await lock.release();
        await (await waited).release();
      });

      it('does not call a run gone between its creation and its note in the job lock', async () => {
        // The dashboard answers a POST as soon as the run exists (run-actions.ts): the page
        // it sends the browser to may be read before the engine notes the run in the lock.
        const l = context.ledger();
        const job = `noting-${Date.now()}`;
        const dead = await l.createRun({ jobName: job, mode: 'upsert' });
        const lock = await l.lockJob(job);
        try {
          const run = await l.createRun({ jobName: job, mode: 'upsert' });
          expect(await l.processGone(run)).toBe(false);
          // A run left running before this holder took the lock is another's, and gone.
          expect(await l.processGone(dead)).toBe(true);
          await lock.holding(run.id);
          expect(await l.processGone(run)).toBe(false);
          expect(await l.processGone(dead)).toBe(true);
        } finally {
          await lock.release();
        }
      });

      it('orders runs by creation, not by start time: runs created in one instant keep their order', async () => {
        const l = context.ledger();
        const job = `ordered-${Date.now()}`;
        const first = await l.createRun({ jobName: job, mode: 'upsert' });
        const second = await l.createRun({ jobName: job, mode: 'upsert' });
        expect(second.seq).toBeGreaterThan(first.seq);
        await l.recordResults([{ runId: second.id, kind: 'user', key: `${job}-k`, action: 'created' }]);
        await l.recordResults([{ runId: first.id, kind: 'user', key: `${job}-j`, action: 'created' }]);
        // handledLater of the first sees the second's key, never the other way round.
        expect([...(await l.handledLater(first.id))]).toEqual([`user\u0000${job}-k`]);
        expect([...(await l.handledLater(second.id))]).toEqual([]);
        const newest = await l.listRuns(2);
        expect(newest.map((r) => r.id)).toEqual([second.id, first.id]);
      });

      it('finishes a run with counts computed from its results, or with the counts given', async () => {
        const l = context.ledger();
        const run = await l.createRun({ jobName: 'counts', mode: 'upsert' });
        await l.recordResults([
          { runId: run.id, kind: 'user', key: 'counts-1', action: 'created' },
          { runId: run.id, kind: 'event', key: 'counts-2', action: 'created' },
          { runId: run.id, kind: 'user', key: 'counts-3', action: 'failed', errorMessage: 'bad e-mail' },
        ]);
        const finished = await l.finishRun(run.id, 'failed');
        expect(finished.status).toBe('failed');
        expect(finished.counts).toEqual({ created: 2, failed: 1 });
        expect(finished.finishedAt).toBeInstanceOf(Date);
        const other = await l.createRun({ jobName: 'counts', mode: 'upsert' });
        expect((await l.finishRun(other.id, 'aborted', { skipped: 7 })).counts).toEqual({ skipped: 7 });
      });

      it('sets a non-terminal status again on resume, clearing finishedAt', async () => {
        const l = context.ledger();
        const run = await l.createRun({ jobName: 'resume', mode: 'upsert' });
        await l.finishRun(run.id, 'interrupted', {});
        await l.setRunStatus(run.id, 'running');
        expect(await l.getRun(run.id)).toMatchObject({ status: 'running', finishedAt: null });
      });

      it('rejects unknown runs with a stable code', async () => {
        await expect(context.ledger().finishRun('nope', 'completed')).rejects.toMatchObject({
          code: 'EVSYNC_LEDGER_UNKNOWN_RUN',
        });
        await expect(context.ledger().setRunStatus('nope', 'running')).rejects.toMatchObject({
          code: 'EVSYNC_LEDGER_UNKNOWN_RUN',
        });
      });

      it('lists runs newest first, up to the limit', async () => {
        const l = context.ledger();
        const a = await l.createRun({ jobName: 'list-a', mode: 'upsert' });
        await new Promise((resolve) => setTimeout(resolve, 15));
        const b = await l.createRun({ jobName: 'list-b', mode: 'upsert' });
        const runs = await l.listRuns(2);
        expect(runs.map((run) => run.id)).toEqual([b.id, a.id]);
        expect((await l.listRuns()).length).toBeGreaterThanOrEqual(2);
      });
    });

    describeResultConformance(context);
    describeInsightsConformance(context);
    describeUnchangedConformance(context);
    describePruneConformance(context);
    describeRemovedKeysConformance(context);
    describeNoticesConformance(context);
    describeSchemaConformance(context);
  });
}

function defined<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('The ledger fixture is not open (beforeAll failed?)');
  return value;
}
