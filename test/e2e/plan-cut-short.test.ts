import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import { FIRST_PLAN_CHUNK } from '../../src/sync/runs/plan-chunks.js';
import { formatRunSummary } from '../../src/sync/execute/run-summary.js';
import { jobYaml, people, startHarness, usersCsv, type SyncHarness } from './sync-harness.js';

const USERS = FIRST_PLAN_CHUNK + 150;

/** The harness's ledger, except that the second chunk of a plan never gets recorded. */
function ledgerCutAfterFirstChunk(ledger: Ledger): Ledger {
  let chunks = 0;
  return new Proxy(ledger, {
    get(target, property) {
      if (property === 'recordPlannedIntents') {
        return async (...args: Parameters<Ledger['recordPlannedIntents']>) => {
          chunks += 1;
          if (chunks === 2) throw new Error('the process was killed while recording the plan.');
          return target.recordPlannedIntents(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('a run whose plan was only partly recorded', () => {
  let h: SyncHarness;
  beforeAll(async () => {
    h = await startHarness({ concurrency: 16 });
    h.write({
      'users.csv': usersCsv(people(USERS, 'cut')),
      'job.yaml': jobYaml('cut', '  - { mapping: users, source: { csv: ./users.csv } }\n'),
    });
  }, 60_000);
  afterAll(async () => h.close());

  it('sends only what was recorded; resume says the rest was never sent; the next run sends it once', async () => {
    const first = await h.run('job.yaml', { extra: { ledger: ledgerCutAfterFirstChunk(h.ledger) } });
    expect(first.stopped).toBe('aborted');
    expect(first.reason).toMatch(/plan could not be recorded.*killed while recording/);
    // The ledger's own full stop does not double, and a resume, which cannot send what
    // was never recorded, is not what the summary advises.
    const shown = formatRunSummary(first);
    expect(shown).toContain(
      "Stopped early: the run's plan could not be recorded in the ledger (the process was killed while recording the plan), so nothing more was sent. Fix the cause, then run the job again",
    );
    expect(shown).not.toMatch(/\.\)?\.|Finish it with: evsync resume/);
    expect(first.counts.user).toEqual({ created: FIRST_PLAN_CHUNK });
    expect(h.sandbox.counters.callsTo('POST', '/user')).toBe(FIRST_PLAN_CHUNK);
    expect(await h.ledger.countPlanned(first.run.id)).toBe(FIRST_PLAN_CHUNK);

    const resumed = await h.resume(first.run.id);
    expect(resumed.stopped).toBe('aborted');
    expect(resumed.run.status).toBe('aborted');
    // The plan streams: how many intents the rest of the sources held was never known.
    expect(resumed.reason).toBe(
      `the run was stopped while its sources were being read: the ${FIRST_PLAN_CHUNK} intents planned by then ` +
        'are finished now; the rest of the sources was never planned nor sent',
    );
    expect(resumed.nextStep).toBe('Run the job again to send them (nothing is sent twice).');
    expect(formatRunSummary(resumed)).toMatch(
      /never planned nor sent\. Run the job again to send them \(nothing is sent twice\)\.$/m,
    );
    expect(h.sandbox.counters.callsTo('POST', '/user')).toBe(FIRST_PLAN_CHUNK);
    // A second resume says the same (issue #41 item 11: it said "the 0 intents planned").
    const again = await h.resume(first.run.id);
    expect(again.reason).toBe(resumed.reason);

    const next = await h.run('job.yaml');
    expect(next.stopped).toBeUndefined();
    expect(next.counts.user).toEqual({ created: USERS - FIRST_PLAN_CHUNK, unchanged: FIRST_PLAN_CHUNK });
    expect(h.sandbox.counters.callsTo('POST', '/user')).toBe(USERS);
    expect(h.sandbox.counters.duplicates()).toEqual({});
  }, 120_000);

  it('a whole plan recorded while sending: resume of a finished run finds nothing cut', async () => {
    const again = await h.run('job.yaml');
    // Every row unchanged: kept as keys, no planned intent (docs/ledger.md, "What a run stores").
    expect(again.counts.user).toEqual({ unchanged: USERS });
    expect(await h.ledger.countPlanned(again.run.id)).toBe(0);
    expect(again.run.options.planned).toBe(0);
    const resumed = await h.resume(again.run.id);
    expect(resumed.stopped).toBeUndefined();
    // A completed run is left as it was: its status and timings stay those of its own end.
    expect(resumed.run).toEqual(again.run);
    expect(await h.ledger.getRun(again.run.id)).toEqual(again.run);
  }, 60_000);
});
