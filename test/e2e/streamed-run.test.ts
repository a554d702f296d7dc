import { describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import { FIRST_PLAN_CHUNK, PLAN_CHUNK } from '../../src/sync/runs/plan-chunks.js';
import { READ_AHEAD_CHUNKS } from '../../src/sync/runs/publish-schedule.js';
import { streamCollected } from '../../src/sync/collect/collect-intents.js';
import { Erasures } from '../../src/sync/collect/erasures.js';
import { loadJobFile } from '../../src/sync/job-file.js';
import { hashIntent } from '../../src/sync/plan/params-hash.js';
import { planJob } from '../../src/sync/runs/plan-job.js';
import { join } from 'node:path';
import type { SyncHarness } from './sync-harness.js';
import { harnessPerFile, jobYaml, people, usersCsv } from './sync-harness.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

/**
 * The ledger, noting how many users the sandbox had created when each plan chunk was
 * recorded (`seen.records`) and when the plan's size was stored (`seen.planned`).
 */
function watchedLedger(
  ledger: Ledger,
  createdSoFar: () => number,
  seen: { records: number[]; planned?: number },
): Ledger {
  return new Proxy(ledger, {
    get(target, property) {
      if (property === 'recordPlannedIntents') {
        return (...args: Parameters<Ledger['recordPlannedIntents']>) => {
          seen.records.push(createdSoFar());
          return target.recordPlannedIntents(...args);
        };
      }
      if (property === 'mergeRunOptions') {
        return (...args: Parameters<Ledger['mergeRunOptions']>) => {
          if (args[1].planned !== undefined) seen.planned = createdSoFar();
          return target.mergeRunOptions(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The ledger with some of its methods replaced (the rest bound to it). */
function ledgerWith(ledger: Ledger, replaced: Partial<Ledger>): Ledger {
  return new Proxy(ledger, {
    get(target, property) {
      const own: unknown = Reflect.get(replaced, property);
      if (own !== undefined) return own;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('evsync run plans while it sends (docs/sync-engine.md, "Memory")', () => {
  let h: SyncHarness;
  harnessPerFile((started) => (h = started));

  /**
   * The ledger's `hashTails`, answering after `ms`: a plan waits on it while the reader
   * reads chunks ahead. `started` is told when a read starts.
   */
  const heldTails = (ms: number, started: () => void = () => undefined): Ledger['hashTails'] =>
    async function* (...args) {
      started();
      await new Promise((resolve) => setTimeout(resolve, ms));
      yield* h.ledger.hashTails(...args);
    };

  /** `NAME.yaml`, a job of one users step reading `NAME.csv` of these rows. */
  const writeUsersJob = (name: string, rows: Parameters<typeof usersCsv>[0]): void =>
    h.write({
      [`${name}.csv`]: usersCsv(rows),
      [`${name}.yaml`]: jobYaml(name, `  - { mapping: users, source: { csv: ./${name}.csv } }\n`),
    });

  it('sends the first users before the source is read to its end, and records every intent once', async () => {
    const users = FIRST_PLAN_CHUNK + 3 * PLAN_CHUNK;
    h.write({
      'stream.csv': usersCsv(people(users, 'st')),
      'stream.yaml': jobYaml('stream', '  - { mapping: users, source: { csv: ./stream.csv } }\n'),
    });
    const seen: { records: number[]; planned?: number } = { records: [] };
    const created = (): number => h.sandbox.counters.callsTo('POST', '/user');
    // Slow enough that more users wait in the queue than the reader lets it hold.
    h.sandbox.faults.set({ latency: { minMs: 10, maxMs: 10 } });
    const summary = await h
      .run('stream.yaml', { extra: { ledger: watchedLedger(h.ledger, created, seen) } })
      .finally(() => h.sandbox.faults.set({}));
    expect(summary.counts.user).toEqual({ created: users });
    // The plan's size is stored as soon as the last chunk is recorded, not once the users
    // queued before it have gone (hundreds of calls later): a run killed while sending them
    // is known to be planned whole, and its resume finishes it.
    expect(seen.planned! - seen.records[3]!).toBeLessThan(100);
    expect(seen.records).toHaveLength(4);
    // Nothing is sent before the first chunk is recorded; by the last chunk, users are out.
    expect(seen.records[0]).toBe(0);
    expect(seen.records[3]).toBeGreaterThan(0);
    expect(summary.run.options).toMatchObject({ planStreamed: true, planned: users });
    // Completed, the run keeps no planned intent of a row that succeeded (docs/ledger.md).
    expect(await h.ledger.countPlanned(summary.run.id)).toBe(0);
    expect(h.sandbox.counters.duplicates()).toEqual({});
  });

  it('a CSV path that does not exist is refused before the run starts: nothing sent', async () => {
    h.write({
      'gone.yaml': jobYaml(
        'gone',
        '  - { mapping: users, source: { csv: ./gone-users.csv } }\n  - { mapping: users, source: { csv: ./no-such.csv } }\n',
      ),
      'gone-users.csv': usersCsv(people(300, 'gone')),
    });
    const runsBefore = (await h.ledger.listRuns(1000)).length;
    const failed = await h.run('gone.yaml').catch((error: unknown) => error);
    expect((failed as Error).message).toMatch(/no-such\.csv does not exist/);
    expect((await h.ledger.listRuns(1000)).length).toBe(runsBefore);
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(0);
  });

  it('a ledger that breaks while the sources are read: the run ends aborted, every sent user has its result', async () => {
    const users = FIRST_PLAN_CHUNK + 2 * PLAN_CHUNK;
    writeUsersJob('broke', people(users, 'br'));
    let lookups = 0;
    const breaking = ledgerWith(h.ledger, {
      hashesOf: (...args: Parameters<Ledger['hashesOf']>) => {
        lookups += 1;
        if (lookups === 3) return Promise.reject(new Error('the database went away'));
        return h.ledger.hashesOf(...args);
      },
    });
    const failed = await h
      .run('broke.yaml', { extra: { ledger: breaking } })
      .catch((error: unknown) => error);
    expect((failed as Error).message).toMatch(/the database went away/);
    const [run] = await h.ledger.listRuns(1);
    expect(run).toMatchObject({ jobName: 'broke', status: 'aborted' });
    expect(String(run?.options.aborted)).toMatch(/the database went away/);
    const sent = h.sandbox.counters.callsTo('POST', '/user');
    expect(sent).toBeGreaterThan(0);
    const counts = await h.ledger.resultCounts(run!.id);
    expect(counts.user?.created).toBe(sent);
  });

  it('on_duplicate: last across chunks: the replaced row is never sent, and a rerun sends nothing', async () => {
    const rows = people(FIRST_PLAN_CHUNK + PLAN_CHUNK + 10, 'od');
    const later = { ...rows[4]!, first: 'Later' };
    h.write({
      'last.yaml':
        'version: 1\non_duplicate: last\nintents:\n  - kind: user\n    params: { client_id: client_id, email: email, first_name: first_name, last_name: last_name }\n',
      'od.csv': usersCsv([...rows, later]),
      'od.yaml': jobYaml('od', '  - { mapping: ./last.yaml, source: { csv: ./od.csv } }\n'),
    });
    const first = await h.run('od.yaml');
    expect(first.counts.user).toMatchObject({ created: rows.length, skipped: 1 });
    expect(h.sandbox.counters.callsTo('POST', '/user')).toBe(rows.length);
    expect(h.sandbox.state.userByClientId(later.id)?.firstName).toBe('Later');
    const again = await h.run('od.yaml');
    expect(again.counts.user).toMatchObject({ unchanged: rows.length });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(rows.length);
  });

  it('a person in two user steps is one user: the earlier step wins; with merge off so does its row', async () => {
    const rows = people(FIRST_PLAN_CHUNK + 10, 'rp');
    const later = { ...rows[0]!, first: 'Later' };
    const steps =
      '  - { mapping: users, source: { csv: ./repeat-a.csv } }\n  - { mapping: users, source: { csv: ./repeat-b.csv } }\n';
    h.write({
      'repeat.yaml': jobYaml('repeat', steps),
      'repeat-apart.yaml': jobYaml('repeat-apart', `${steps}merge: { users: false }\n`),
      'repeat-a.csv': usersCsv(rows),
      'repeat-b.csv': usersCsv([later]),
    });
    const merged = await h.run('repeat.yaml');
    expect(merged.run.status).toBe('completed');
    // Merged before planning (docs/sync-engine.md, "One person, many sources"): sent once.
    expect(merged.counts.user).toMatchObject({ created: rows.length });
    expect(h.sandbox.state.userByClientId(later.id)?.firstName).toBe(rows[0]!.first);
    // Kept apart, a key a later step repeats is the first row's: the repeat fails, named.
    const apart = await h.run('repeat-apart.yaml');
    expect(apart.run.status).toBe('completed');
    expect(apart.counts.user).toEqual({ unchanged: rows.length, failed: 1 });
    const [repeat] = await h.ledger.results(apart.run.id, { actions: ['failed'] });
    expect(repeat).toMatchObject({ key: `${later.id}#row1`, errorCode: 'EVSYNC_DUPLICATE_KEY' });
    expect(h.sandbox.state.userByClientId(later.id)?.firstName).toBe(rows[0]!.first);
    expect(h.sandbox.counters.duplicates()).toEqual({});
  });

  it("merge off, one key in two steps: the first step's row is synced on every run, the repeat fails", async () => {
    // Steps far apart (a chunk each and more) and close (both in one chunk): the platform
    // keeps the first step's values, whatever the timing, and every row has its result.
    for (const count of [3 * PLAN_CHUNK, 2]) {
      const name = `apart${count}`;
      const first = people(count, `${name}-`).map((row) => ({ ...row, company: 'A' }));
      const second = first.map((row) => ({ ...row, company: 'B' }));
      const steps = `  - { mapping: users, source: { csv: ./${name}-a.csv } }\n  - { mapping: users, source: { csv: ./${name}-b.csv } }\n`;
      h.write({
        [`${name}.yaml`]: jobYaml(name, `${steps}merge: { users: false }\n`),
        [`${name}-a.csv`]: usersCsv(first),
        [`${name}-b.csv`]: usersCsv(second),
      });
      const companies = (): Set<string | null | undefined> =>
        new Set(first.map((row) => h.sandbox.state.userByClientId(row.id)?.companyName));
      const imported = await h.run(`${name}.yaml`);
      expect(imported.counts.user).toEqual({ created: count, failed: count });
      expect(companies()).toEqual(new Set(['A']));
      // The first step changes: it is what the platform gets; the second is refused again.
      h.write({ [`${name}-a.csv`]: usersCsv(first.map((row) => ({ ...row, company: 'C' }))) });
      const night = await h.run(`${name}.yaml`);
      expect(night.counts.user).toEqual({ updated: count, failed: count });
      expect(companies()).toEqual(new Set(['C']));
      const again = await h.run(`${name}.yaml`);
      expect(again.counts.user).toEqual({ unchanged: count, failed: count });
      expect(companies()).toEqual(new Set(['C']));
    }
    expect(h.sandbox.counters.duplicates()).toEqual({});
  });

  it('reads on while the synced hashes are read; which rows skip the checks depends on the source alone', async () => {
    // A row whose params the ledger holds as synced is built without the param checks
    // (docs/sync-engine.md, "Memory"), from the chunk the reader publishes the read hashes
    // at: READ_AHEAD_CHUNKS chunks after the read started, however long it took.
    const rows = people(FIRST_PLAN_CHUNK + (READ_AHEAD_CHUNKS + 12) * PLAN_CHUNK, 'ra');
    const early = FIRST_PLAN_CHUNK + 2 * PLAN_CHUNK + 500;
    const late = rows.length - 500;
    // The hashes are published after the chunk that ends at `boundary` (the first chunk,
    // the one that starts the read, the one that waits for it, the chunks read ahead; the
    // early row, a result and no intent, makes its chunk one row longer), once the row after
    // it is read: a chunk knows then that it is not the last. That row is checked, the next
    // is not, by the run and by `evsync plan` alike.
    const boundary = FIRST_PLAN_CHUNK + (READ_AHEAD_CHUNKS + 3) * PLAN_CHUNK + 1;
    const [readAhead, firstUnchecked] = [boundary + 1, boundary + 2];
    // Refused by today's checks, yet held as synced: as a row a newer release refuses.
    for (const at of [early, readAhead, firstUnchecked, late])
      rows[at - 1] = { ...rows[at - 1]!, email: `bad${at}@` };
    writeUsersJob('ahead', rows);
    // Every row's params held as synced, as if the run before had sent them all.
    const synced: Array<{ kind: 'user'; key: string; hash: string; runId: string }> = [];
    const before = await h.ledger.createRun({ jobName: 'ahead', mode: 'upsert' });
    const job = loadJobFile(join(h.dir, 'ahead.yaml'));
    const vendor = h.client.vendor;
    const erasures = await Erasures.load(h.ledger, vendor);
    const hashOf = (
      _kind: string,
      key: string,
      op: 'upsert' | 'remove',
      params: Record<string, string>,
    ): undefined => void synced.push({ kind: 'user', key, hash: hashIntent(op, params), runId: before.id });
    for await (const row of streamCollected(job, { vendor, erasures, syncedHash: hashOf })) void row;
    expect(synced).toHaveLength(rows.length);
    await h.ledger.setHashes(synced);
    await h.ledger.finishRun(before.id, 'completed', {});
    let chunks = 0;
    const slowRead = (delayMs: number): Ledger =>
      ledgerWith(h.ledger, {
        recordUnchanged: (...args: Parameters<Ledger['recordUnchanged']>) => {
          chunks += 1;
          return h.ledger.recordUnchanged(...args);
        },
        hashTails: heldTails(delayMs),
      });
    for (const delayMs of [0, 1500]) {
      chunks = 0;
      const night = await h.run('ahead.yaml', { extra: { ledger: slowRead(delayMs) } });
      // Rows found synced count little toward a chunk: the 9,000 read after the publish are
      // one chunk, not nine.
      expect(chunks).toBeLessThanOrEqual(READ_AHEAD_CHUNKS + 5);
      // The early rows were read before the hashes were published, and checked; the late
      // ones after, and taken as synced. Nothing else changed, so nothing was sent.
      expect(night.counts.user).toEqual({ unchanged: rows.length - 2, failed: 2 });
      const failed = await h.ledger.results(night.run.id, { actions: ['failed'] });
      expect(failed.map((result) => [result.key, result.errorMessage])).toEqual([
        [`ra${early}`, expect.stringContaining(`bad${early}@`)],
        [`ra${readAhead}`, expect.stringContaining(`bad${readAhead}@`)],
      ]);
      expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(0);
    }
    // `evsync plan` publishes what it read on the same schedule: it says what the run does.
    const plan = await planJob({ ledger: h.ledger, vendor }, { job });
    expect(plan.counts.user).toEqual({ unchanged: rows.length - 2, invalid: 2 });
  });

  it('a plan that fails while the reader is ahead: the users of the chunks planned before it are sent', async () => {
    const users = FIRST_PLAN_CHUNK + 20 * PLAN_CHUNK;
    writeUsersJob('fail-ahead', people(users, 'fa'));
    let records = 0;
    const failing = ledgerWith(h.ledger, {
      // Slow enough that the reader reads its chunks ahead before any of them is planned.
      hashTails: heldTails(5000),
      recordPlannedIntents: (...args: Parameters<Ledger['recordPlannedIntents']>) => {
        records += 1;
        if (records === 8) return Promise.reject(new Error('the disk is full'));
        return h.ledger.recordPlannedIntents(...args);
      },
    });
    const summary = await h.run('fail-ahead.yaml', { extra: { ledger: failing } });
    expect(summary.run.status).toBe('aborted');
    // Chunks 1 to 7 were recorded (the 8th failed): each of their users is sent.
    expect(h.sandbox.counters.callsTo('POST', '/user')).toBe(FIRST_PLAN_CHUNK + 6 * PLAN_CHUNK);
    expect(summary.counts.user).toMatchObject({ created: FIRST_PLAN_CHUNK + 6 * PLAN_CHUNK });
  });

  it('a signal while the reader is ahead stops it at once: no queued chunk is planned; resume ends it', async () => {
    const users = FIRST_PLAN_CHUNK + 20 * PLAN_CHUNK;
    writeUsersJob('stop-ahead', people(users, 'sa'));
    let records = 0;
    let recordsAtSignal: number | undefined;
    const stopping = new AbortController();
    const held = ledgerWith(h.ledger, {
      // A chunk's plan waits on the hashes while the reader reads chunks ahead; the signal
      // comes a second into that wait.
      hashTails: heldTails(3000, () =>
        setTimeout(() => {
          recordsAtSignal = records;
          stopping.abort('SIGINT');
        }, 1000),
      ),
      recordPlannedIntents: (...args: Parameters<Ledger['recordPlannedIntents']>) => {
        records += 1;
        return h.ledger.recordPlannedIntents(...args);
      },
    });
    const stopped = await h.run('stop-ahead.yaml', { extra: { ledger: held, signal: stopping.signal } });
    expect(stopped.run.status).toBe('interrupted');
    // Only the chunk whose plan was under way when the signal came is recorded after it, not
    // the READ_AHEAD_CHUNKS chunks read behind it (before, all 20 were).
    expect(recordsAtSignal).toBeDefined();
    expect(records).toBeLessThanOrEqual(recordsAtSignal! + 1);
    // The resume sends what was recorded, the job run again the rest: each user once.
    await h.resume(stopped.run.id);
    const again = await h.run('stop-ahead.yaml');
    expect(again.run.status).toBe('completed');
    expect(h.sandbox.counters.callsTo('POST', '/user')).toBe(users);
  });

  it('a signal while the reader ends its source ahead of the plans: the plan is not whole, nothing deleted', async () => {
    // Mirror mode, all synced, a source that ends inside the read-ahead: the chunks the
    // signal left unplanned drain as empty, and were taken for planned, the plan for whole,
    // and every key in them for gone (5,000 deletes on resume, as a reviewer found).
    const users = FIRST_PLAN_CHUNK + 8 * PLAN_CHUNK;
    writeUsersJob('stop-end', people(users, 'se'));
    h.write({
      'stop-end.yaml': jobYaml(
        'stop-end',
        '  - { mapping: users, source: { csv: ./stop-end.csv } }\n',
        'mode: mirror\ndelete_threshold: 100%\n',
      ),
    });
    expect((await h.run('stop-end.yaml')).counts.user).toEqual({ created: users });
    const stopping = new AbortController();
    const held = ledgerWith(h.ledger, {
      hashTails: heldTails(3000, () => setTimeout(() => stopping.abort('SIGINT'), 1000)),
    });
    const stopped = await h.run('stop-end.yaml', { extra: { ledger: held, signal: stopping.signal } });
    expect(stopped.run.status).toBe('interrupted');
    expect(stopped.run.options?.planned).toBeUndefined();
    await h.resume(stopped.run.id);
    const again = await h.run('stop-end.yaml');
    expect(again.counts.user).toEqual({ unchanged: users });
    expect(h.sandbox.counters.callsTo('DELETE', '/user/{id}')).toBe(0);
    expect(h.sandbox.state.conferenceUsers()).toHaveLength(users);
  });

  it('a signal while a chunk waits for the ledger before it is queued: the run ends interrupted', async () => {
    const users = FIRST_PLAN_CHUNK + 3 * PLAN_CHUNK;
    writeUsersJob('stop-queue', people(users, 'sq'));
    const stopping = new AbortController();
    let lists = 0;
    const held = ledgerWith(h.ledger, {
      // The key holds are read again before each chunk is queued: the signal comes while
      // the second chunk waits for them.
      holds: () => {
        const holds = h.ledger.holds();
        return {
          ...holds,
          hold: holds.hold.bind(holds),
          release: holds.release.bind(holds),
          list: async () => {
            lists += 1;
            if (lists === 3) {
              stopping.abort('SIGINT');
              await new Promise((resolve) => setTimeout(resolve, 200));
            }
            return holds.list();
          },
        };
      },
    });
    const stopped = await h.run('stop-queue.yaml', { extra: { ledger: held, signal: stopping.signal } });
    expect(lists).toBeGreaterThanOrEqual(3);
    expect(stopped.run.status).toBe('interrupted');
    await h.resume(stopped.run.id);
    await h.run('stop-queue.yaml');
    expect(h.sandbox.counters.callsTo('POST', '/user')).toBe(users);
  });
});
