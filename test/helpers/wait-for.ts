import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `condition` every 100 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await sleep(100);
  }
}
