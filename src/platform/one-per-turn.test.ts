import { describe, expect, it } from 'vitest';
import { BUSY_WINDOW_MS, loopBusy, OnePerTurn } from './one-per-turn.js';

/** Counts event-loop turns: each check phase bumps it once. */
function turnCounter(): { current: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    turns += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { current: () => turns, stop: () => void (running = false) };
}

describe('OnePerTurn', () => {
  it('lets callers who arrive together through on separate turns, in arrival order', async () => {
    const gate = new OnePerTurn(() => false);
    const counter = turnCounter();
    const seen: Array<{ caller: number; turn: number }> = [];
    await Promise.all(
      [1, 2, 3, 4].map(async (caller) => {
        await gate.next();
        seen.push({ caller, turn: counter.current() });
      }),
    );
    counter.stop();
    expect(seen.map((s) => s.caller)).toEqual([1, 2, 3, 4]);
    const turns = seen.map((s) => s.turn);
    expect(new Set(turns).size).toBe(4);
  });

  it('lets a lone caller through on the next turn, and again after the queue ran dry', async () => {
    const gate = new OnePerTurn(() => false);
    const order: string[] = [];
    const first = gate.next().then(() => order.push('gate'));
    order.push('sync');
    await first;
    await gate.next();
    order.push('again');
    expect(order).toEqual(['sync', 'gate', 'again']);
  });

  it('lets callers through at once, after everyone waiting, while the loop is busy', async () => {
    let busy = false;
    const gate = new OnePerTurn(() => busy);
    const order: string[] = [];
    gate.pass(() => order.push('queued 1'));
    gate.pass(() => order.push('queued 2'));
    busy = true;
    gate.pass(() => order.push('at once'));
    order.push('sync');
    // The turn's release finds nobody, and the gate spreads again once the loop has time.
    await new Promise((resolve) => setImmediate(resolve));
    busy = false;
    await gate.next();
    order.push('spread again');
    expect(order).toEqual(['queued 1', 'queued 2', 'at once', 'sync', 'spread again']);
  });
});

describe('loopBusy', () => {
  it('reads the loop again only once a window has passed', () => {
    let now = 0;
    const busy = loopBusy(() => now);
    expect(busy()).toBe(false);
    // A synchronous spin: the loop is busy the whole window.
    const until = performance.now() + BUSY_WINDOW_MS + 20;
    while (performance.now() < until);
    expect(busy()).toBe(false);
    now += BUSY_WINDOW_MS;
    expect(busy()).toBe(true);
  });
});
