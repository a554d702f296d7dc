import { describe, expect, it } from 'vitest';
import { OnePerTurn } from './one-per-turn.js';

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
    const gate = new OnePerTurn();
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
    const gate = new OnePerTurn();
    const order: string[] = [];
    const first = gate.next().then(() => order.push('gate'));
    order.push('sync');
    await first;
    await gate.next();
    order.push('again');
    expect(order).toEqual(['sync', 'gate', 'again']);
  });
});
