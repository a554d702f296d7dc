import type { Queue, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { IntentJobSink } from '../../src/distributed/distributed-executor.js';
import { IntentRateLimited, type IntentJob, type IntentJobResult } from '../../src/distributed/intent-job.js';
import type { IntentQueue, IntentWorkerOptions } from '../../src/distributed/intent-queue.js';
import type { JobFile } from '../../src/sync/job-file.js';

/** A worker in a process of its own, whose handler never finishes: only a kill ends it. */
export interface SpawnedWorker {
  /** The keys of the jobs it took, in order. */
  readonly taken: readonly string[];
  /** Resolves when it takes its next job. */
  nextTaken(): Promise<void>;
  /** SIGKILL: its jobs stay active in Redis, with locks no one renews. */
  kill(): Promise<void>;
}

/** One installation of distributed mode's queue: the coordinator's side and its workers. */
export interface IntentQueueUnderTest {
  /** BullMQ's key prefix of this installation. */
  prefix: string;
  /** The producer, as `evsync run`, `resume` and `retry` hold it. */
  producer: IntentJobSink & Pick<IntentQueue, 'phaseNotes'>;
  /** The BullMQ queue under it, for what only a test does: look at a job, add a foreign one. */
  queue: Queue<IntentJob, IntentJobResult>;
  /** The job's rate for every worker, as `evsync run` sets it. */
  setRate(rate: JobFile['rate']): Promise<void>;
  /** A worker in this process (`evsync worker`), on a connection of its own. */
  startWorker(options: Omit<IntentWorkerOptions, 'connection' | 'prefix'>): Promise<Worker>;
  /** A worker in a process of its own, to kill. */
  spawnWorker(): Promise<SpawnedWorker>;
  /** Closes its workers and connections. */
  close(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `condition` holds; fails after `timeoutMs`, naming `what`. */
async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const job = (key: string, fields: Partial<IntentJob> = {}): IntentJob => ({
  runId: 'run-a',
  epoch: 'pass-1',
  phase: 'users',
  kind: 'user',
  key,
  ...fields,
});

const keys = (count: number, stem = 'u'): string[] => Array.from({ length: count }, (_, i) => `${stem}${i}`);

const done = (worker = 'test'): IntentJobResult => ({ action: 'created', worker });

/** The handler's calls, by key, in order. */
class Calls {
  readonly keys: string[] = [];
  count(key: string): number {
    return this.keys.filter((seen) => seen === key).length;
  }
  record(job: IntentJob): void {
    this.keys.push(job.key);
  }
}

const noGiveUp: IntentWorkerOptions['gaveUp'] = (job) =>
  Promise.reject(new Error(`gave up on ${job.key}, which should not happen`));

/** A worker whose handler notes each intent in `calls` and succeeds. */
function recording(calls: Calls, concurrency: number): Parameters<IntentQueueUnderTest['startWorker']>[0] {
  return {
    concurrency,
    handle: (intent) => {
      calls.record(intent);
      return Promise.resolve(done());
    },
    gaveUp: noGiveUp,
  };
}

/**
 * What distributed mode relies on from its queue (docs/distributed.md), checked against
 * the producer and the worker it runs: the coordinator's `IntentJobSink` on one side,
 * `evsync worker`'s consumer on the other, in separate connections as in separate processes.
 */
export function describeIntentQueueConformance(open: () => Promise<IntentQueueUnderTest>): void {
  describe('intent queue conformance', () => {
    const opened: IntentQueueUnderTest[] = [];
    const install = async (): Promise<IntentQueueUnderTest> => {
      const installation = await open();
      opened.push(installation);
      return installation;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((installation) => installation.close()));
    });

    it('hands every enqueued intent to one worker once, whatever its key, across workers', async () => {
      const iq = await install();
      const calls = new Calls();
      const odd = ['12345', 'a:b c', 'ümlaut/ß', ''];
      await iq.producer.enqueue([...keys(2500), ...odd].map((key) => job(key)));
      // In chunks of 1,000, several at once: all of them are there before any worker.
      expect(await iq.producer.outstanding()).toBe(2504);
      for (let i = 0; i < 2; i += 1) await iq.startWorker(recording(calls, 8));
      await until('the queue to empty', async () => (await iq.producer.outstanding()) === 0);
      expect(calls.keys).toHaveLength(2504);
      expect(new Set(calls.keys)).toEqual(new Set([...keys(2500), ...odd]));
    });

    it('adds an intent enqueued twice in one pass once, and again in a new pass', async () => {
      const iq = await install();
      const calls = new Calls();
      await iq.producer.enqueue([job('u1'), job('u1'), job('u2')]);
      await iq.producer.enqueue([job('u1')]);
      expect(await iq.producer.outstanding()).toBe(2);
      await iq.startWorker(recording(calls, 2));
      await until('both handled', () => calls.keys.length === 2);
      // Its finished job is kept a while, and still holds its id.
      await iq.producer.enqueue([job('u1')]);
      await iq.producer.enqueue([job('u2', { epoch: 'pass-2' })]);
      await until('the new pass handled', () => calls.count('u2') === 2);
      await sleep(200);
      expect(calls.count('u1')).toBe(1);
      expect(await iq.producer.outstanding()).toBe(0);
    });

    it('hands the jobs out in enqueue order', async () => {
      const iq = await install();
      const calls = new Calls();
      const order = keys(30).reverse();
      await iq.producer.enqueue(order.map((key) => job(key)));
      await iq.startWorker(recording(calls, 1));
      await until('all handled', () => calls.keys.length === 30);
      expect(calls.keys).toEqual(order);
    });

    it("never runs more at once than a worker's concurrency, nor than the run's on all workers", async () => {
      const iq = await install();
      let active = 0;
      let peak = 0;
      const handle = async (): Promise<IntentJobResult> => {
        active += 1;
        peak = Math.max(peak, active);
        await sleep(15);
        active -= 1;
        return done();
      };
      const one = await iq.startWorker({ concurrency: 3, handle, gaveUp: noGiveUp });
      await iq.producer.enqueue(keys(30).map((key) => job(key)));
      await until('the queue to empty', async () => (await iq.producer.outstanding()) === 0);
      expect(peak).toBe(3);
      await one.close();

      peak = 0;
      await iq.setRate({ per_second: 1000, concurrency: 2 });
      for (let i = 0; i < 2; i += 1) await iq.startWorker({ concurrency: 3, handle, gaveUp: noGiveUp });
      await iq.producer.enqueue(keys(30, 'v').map((key) => job(key)));
      await until('the queue to empty', async () => (await iq.producer.outstanding()) === 0);
      expect(peak).toBe(2);
    });

    it("starts no more jobs per second on all workers than the run's rate", async () => {
      const iq = await install();
      await iq.setRate({ per_second: 10, concurrency: 8 });
      const starts: number[] = [];
      for (let i = 0; i < 2; i += 1)
        await iq.startWorker({
          concurrency: 4,
          handle: () => {
            starts.push(Date.now());
            return Promise.resolve(done());
          },
          gaveUp: noGiveUp,
        });
      await iq.producer.enqueue(keys(25).map((key) => job(key)));
      await until('all handled', () => starts.length === 25);
      // 10 a second: the 21st job starts in the third second.
      expect(starts[24]! - starts[0]!).toBeGreaterThan(1900);
    });

    it('withdraws the waiting jobs of one run, of every pass, and leaves the rest', async () => {
      const iq = await install();
      // Pages of 1,000 from the end, run A's and run B's jobs interleaved.
      const mixed = keys(2500).map((key, i) =>
        job(key, i % 2 === 0 ? { epoch: i % 4 === 0 ? 'pass-1' : 'pass-2' } : { runId: 'run-b' }),
      );
      await iq.producer.enqueue(mixed);
      expect(await iq.producer.withdrawRun('run-a')).toBe(1250);
      expect(await iq.producer.outstanding()).toBe(1250);
      const calls = new Calls();
      const runs = new Set<string>();
      await iq.startWorker({
        concurrency: 8,
        handle: (intent) => {
          calls.record(intent);
          runs.add(intent.runId);
          return Promise.resolve(done());
        },
        gaveUp: noGiveUp,
      });
      await until('the queue to empty', async () => (await iq.producer.outstanding()) === 0);
      expect(calls.keys).toHaveLength(1250);
      expect([...runs]).toEqual(['run-b']);
    });

    it('counts what workers hold per run, and leaves a held job to finish when its run is withdrawn', async () => {
      const iq = await install();
      const calls = new Calls();
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      await iq.startWorker({
        concurrency: 1,
        handle: async (intent) => {
          calls.record(intent);
          await held;
          return done();
        },
        gaveUp: noGiveUp,
      });
      await iq.producer.enqueue([job('a1'), job('a2'), job('b1', { runId: 'run-b' })]);
      await until('a1 taken', () => calls.keys.length === 1);
      expect(await iq.producer.outstanding()).toBe(3);
      expect(await iq.producer.activeOf('run-a')).toBe(1);
      expect(await iq.producer.activeOf('run-b')).toBe(0);
      expect(await iq.producer.withdrawRun('run-a')).toBe(1);
      release();
      await until('the queue to empty', async () => (await iq.producer.outstanding()) === 0);
      expect(calls.keys).toEqual(['a1', 'b1']);
    });

    it("pauses every worker for a rate limit's wait, and sends the job again without a failed try", async () => {
      const iq = await install();
      // The coordinator sets a rate for the run, which is what lets a pause hold the queue.
      await iq.setRate({ per_second: 1000, concurrency: 8 });
      const starts: Array<{ key: string; at: number }> = [];
      let limitedAt = 0;
      const gaveUp: string[] = [];
      for (let i = 0; i < 2; i += 1)
        await iq.startWorker({
          concurrency: 1,
          handle: async (intent) => {
            starts.push({ key: intent.key, at: Date.now() });
            await sleep(20);
            if (intent.key === 'u0' && limitedAt === 0) {
              limitedAt = Date.now();
              throw new IntentRateLimited(500);
            }
            return done();
          },
          gaveUp: (intent) => Promise.resolve(void gaveUp.push(intent.key)),
        });
      await iq.producer.enqueue(keys(10).map((key) => job(key)));
      await until('the queue to empty', async () => (await iq.producer.outstanding()) === 0);
      // A job may start in the instant before the pause is written; none after, for its wait.
      const during = starts.filter(({ at }) => at > limitedAt + 30 && at < limitedAt + 450);
      expect(during).toEqual([]);
      expect(starts.filter(({ key }) => key === 'u0')).toHaveLength(2);
      expect(starts).toHaveLength(11);
      const u0 = (await iq.queue.getJobs(['completed'])).find((found) => found.data.key === 'u0');
      expect(u0).toMatchObject({ attemptsStarted: 2, attemptsMade: 1 });
      expect(gaveUp).toEqual([]);
    });

    it('gives a job up after 50 starts when the platform keeps answering 429', async () => {
      const iq = await install();
      await iq.setRate({ per_second: 1000, concurrency: 8 });
      const calls = new Calls();
      const gaveUp: Array<{ key: string; error: unknown; tries: number }> = [];
      await iq.startWorker({
        concurrency: 1,
        handle: (intent) => {
          calls.record(intent);
          return Promise.reject(new IntentRateLimited(1));
        },
        gaveUp: (intent, error, tries) =>
          Promise.resolve(void gaveUp.push({ key: intent.key, error, tries })),
      });
      await iq.producer.enqueue([job('u1')]);
      await until('the job given up', () => gaveUp.length === 1, 30_000);
      expect(calls.count('u1')).toBe(50);
      expect(gaveUp[0]).toMatchObject({ key: 'u1', tries: 51 });
      expect(String(gaveUp[0]?.error)).toMatch(/started more than allowable limit/);
    });

    it('tries a failing job again after a wait, and gives it up after its fifth failed try', async () => {
      const iq = await install();
      const calls = new Calls();
      const gaveUp: Array<{ key: string; error: unknown; tries: number }> = [];
      const delayed = new Set<string>();
      await iq.startWorker({
        concurrency: 2,
        handle: (intent) => {
          calls.record(intent);
          if (intent.key === 'always' || calls.count(intent.key) <= 2)
            return Promise.reject(new Error('the ledger is down'));
          return Promise.resolve(done());
        },
        gaveUp: (intent, error, tries) =>
          Promise.resolve(void gaveUp.push({ key: intent.key, error, tries })),
      });
      await iq.producer.enqueue([job('always'), job('twice')]);
      // The backoff waits 1, 2, 4 and 8 s (less jitter): the test hurries each delayed job on.
      await until(
        'always given up',
        async () => {
          for (const waiting of await iq.queue.getJobs(['delayed'])) {
            delayed.add(waiting.data.key);
            await waiting.promote().catch(() => undefined);
          }
          return gaveUp.length === 1 && (await iq.producer.outstanding()) === 0;
        },
        30_000,
      );
      expect(delayed).toEqual(new Set(['always', 'twice']));
      expect(calls.count('always')).toBe(5);
      expect(calls.count('twice')).toBe(3);
      expect(gaveUp).toHaveLength(1);
      expect(gaveUp[0]).toMatchObject({ key: 'always', tries: 5 });
      expect(String(gaveUp[0]?.error)).toMatch(/the ledger is down/);
    });

    it('fails a job that is not an intent at once, without a handler or a give-up', async () => {
      const iq = await install();
      const calls = new Calls();
      await iq.startWorker(recording(calls, 1));
      // As another program, or an older evsync, could have written it.
      const foreign = await (iq.queue as Queue).add(
        'user',
        { runId: 'run-a', key: 'no kind' },
        { attempts: 5 },
      );
      await until('it failed', async () => (await iq.queue.getJobState(foreign.id!)) === 'failed');
      const failed = await iq.queue.getJob(foreign.id!);
      expect(failed?.failedReason).toMatch(/not an intent job/);
      expect(failed?.attemptsStarted).toBe(1);
      expect(calls.keys).toEqual([]);
    });

    it('a closed worker finishes what it holds and takes no more; another takes the rest', async () => {
      const iq = await install();
      const first = new Calls();
      const second = new Calls();
      const closing = await iq.startWorker({
        concurrency: 2,
        handle: async (intent) => {
          first.record(intent);
          await sleep(150);
          return done('first');
        },
        gaveUp: noGiveUp,
      });
      await iq.producer.enqueue(keys(6).map((key) => job(key)));
      await until('two taken', () => first.keys.length === 2);
      expect(await iq.producer.workers()).toBe(1);
      await closing.close();
      expect(first.keys).toEqual(['u0', 'u1']);
      expect(await iq.producer.outstanding()).toBe(4);
      expect(await iq.producer.workers()).toBe(0);
      await iq.startWorker({
        concurrency: 2,
        handle: (intent) => {
          second.record(intent);
          return Promise.resolve(done('second'));
        },
        gaveUp: noGiveUp,
      });
      await until('the queue to empty', async () => (await iq.producer.outstanding()) === 0);
      expect(second.keys).toEqual(['u2', 'u3', 'u4', 'u5']);
      const results = (await iq.queue.getJobs(['completed'])).map((finished) => finished.returnvalue);
      expect(results.filter((result) => result?.worker === 'first')).toHaveLength(2);
    });

    it("hands a killed worker's job to another within the lock's time", { timeout: 45_000 }, async () => {
      const iq = await install();
      const killed = await iq.spawnWorker();
      const taken = killed.nextTaken();
      await iq.producer.enqueue([job('u1')]);
      await taken;
      const calls = new Calls();
      await iq.startWorker(recording(calls, 1));
      await killed.kill();
      const killedAt = Date.now();
      expect(await iq.producer.activeOf('run-a')).toBe(1);
      // Lock 10 s, checked every 5 s: a stalled job is found in two checks.
      await until('the job taken again', () => calls.keys.length === 1, 25_000);
      expect(Date.now() - killedAt).toBeLessThan(21_000);
      expect(killed.taken).toEqual(['u1']);
      await until('the queue to empty', async () => (await iq.producer.outstanding()) === 0);
    });

    it('keeps installations on one Redis apart by prefix, jobs and phase notes alike', async () => {
      const [mine, theirs] = [await install(), await install()];
      const note = { phase: 'users' as const, total: 3, done: 1, startedAt: '2026-11-25T12:00:00.000Z' };
      await mine.producer.notePhase('run-a', note);
      await mine.producer.enqueue([job('u1')]);
      const theirCalls = new Calls();
      await theirs.startWorker({
        concurrency: 1,
        handle: (intent) => {
          theirCalls.record(intent);
          return Promise.resolve(done());
        },
        gaveUp: noGiveUp,
      });
      await sleep(300);
      expect(theirCalls.keys).toEqual([]);
      expect(await theirs.producer.outstanding()).toBe(0);
      expect(await mine.producer.outstanding()).toBe(1);
      expect(await mine.producer.phaseNotes()).toEqual(new Map([['run-a', note]]));
      expect(await theirs.producer.phaseNotes()).toEqual(new Map());
    });
  });
}
