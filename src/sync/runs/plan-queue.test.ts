import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { PlanQueue } from './plan-queue.js';

/** A plan the test ends by hand, noting when it started. */
function heldPlan(name: string, started: string[]) {
  let end!: (users: PlannedIntent[]) => void;
  let fail!: (error: Error) => void;
  const users = [{ key: name } as unknown as PlannedIntent];
  const plan = (): Promise<PlannedIntent[]> => {
    started.push(name);
    return new Promise<PlannedIntent[]>((resolve, reject) => {
      end = resolve;
      fail = reject;
    });
  };
  return { plan, end: () => end(users), fail: (error: Error) => fail(error) };
}

/** A queue of two held plans, `a` then `b`. */
function twoQueued() {
  const started: string[] = [];
  const [a, b] = [heldPlan('a', started), heldPlan('b', started)];
  const queue = new PlanQueue();
  queue.add(a.plan);
  queue.add(b.plan);
  return { started, a, b, queue };
}

const keys = (chunks: PlannedIntent[][]): string[] => chunks.flat().map((item) => item.key);

async function collect(users: AsyncGenerator<PlannedIntent[]>): Promise<string[]> {
  const chunks: PlannedIntent[][] = [];
  for await (const chunk of users) chunks.push(chunk);
  return keys(chunks);
}

describe('PlanQueue', () => {
  it('plans one chunk after another, in order, and hands over only what is planned', async () => {
    const { started, a, b, queue } = twoQueued();
    await Promise.resolve();
    // The second waits for the first.
    expect(started).toEqual(['a']);
    expect(await collect(queue.done())).toEqual([]);
    a.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['a', 'b']);
    expect(queue.busy()).toBe(true);
    expect(await collect(queue.done())).toEqual(['a']);
    b.end();
    expect(keys((await queue.all()).users)).toEqual(['b']);
    expect(queue.busy()).toBe(false);
  });

  it('a chunk whose plan failed leaves the next unplanned; those planned before it are handed over first', async () => {
    const { started, a, b, queue } = twoQueued();
    const c = heldPlan('c', started);
    queue.add(c.plan);
    a.end();
    await new Promise((resolve) => setImmediate(resolve));
    b.fail(new Error('the ledger went away'));
    const planned = await queue.all();
    expect(keys(planned.users)).toEqual(['a']);
    expect(String(planned.failed?.error)).toMatch(/the ledger went away/);
    expect(started).toEqual(['a', 'b']);

    const again = twoQueued();
    again.a.end();
    await new Promise((resolve) => setImmediate(resolve));
    again.b.fail(new Error('the ledger went away'));
    const handed: string[] = [];
    const drained = (async () => {
      for await (const users of again.queue.drain()) handed.push(...keys([users]));
    })();
    await expect(drained).rejects.toThrow('the ledger went away');
    expect(handed).toEqual(['a']);
  });

  it('once stopped, plans no chunk not started yet and waits for the one in flight', async () => {
    const { started, a, queue } = twoQueued();
    const stopping = queue.stop();
    a.end();
    await stopping;
    expect(started).toEqual(['a']);
  });
});
