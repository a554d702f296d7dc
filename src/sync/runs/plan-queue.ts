import type { PlannedIntent } from '../../model/planned-intent.js';

/**
 * The chunks of a streamed plan being planned, in source order, each once the one before is
 * planned: a chunk whose plan failed leaves the next unplanned and is thrown when reached,
 * after the users of the chunks planned before it are handed over.
 */
export class PlanQueue {
  private readonly chunks: Array<{ users: Promise<PlannedIntent[]>; settled: boolean }> = [];
  private stopped = false;

  add(plan: () => Promise<PlannedIntent[]>): void {
    const before = this.chunks.at(-1)?.users;
    // A chunk not started when the run stops is not planned: only the one in flight ends.
    const start = (): Promise<PlannedIntent[]> => (this.stopped ? Promise.resolve([]) : plan());
    const entry = { users: before ? before.then(start) : start(), settled: false };
    const settle = (): void => void (entry.settled = true);
    // Waited for by `done` or `all`, which throw what it threw.
    entry.users.then(settle, settle);
    this.chunks.push(entry);
  }

  /** Whether the newest chunk is still being planned. */
  busy(): boolean {
    return this.chunks.at(-1)?.settled === false;
  }

  /** The users of the oldest chunks that are planned, without waiting. */
  async *done(): AsyncGenerator<PlannedIntent[]> {
    while (this.chunks[0]?.settled) {
      const users = await this.chunks.shift()!.users;
      if (users.length > 0) yield users;
    }
  }

  /** The users of every chunk, each once planned. */
  async *drain(): AsyncGenerator<PlannedIntent[]> {
    while (this.chunks.length > 0) {
      const users = await this.chunks.shift()!.users;
      if (users.length > 0) yield users;
    }
  }

  /**
   * Every chunk's users once all are planned, and what the first chunk that failed threw:
   * the users of the chunks before it are still to be handed over.
   */
  async all(): Promise<{ users: PlannedIntent[][]; failed?: { error: unknown } }> {
    const users: PlannedIntent[][] = [];
    while (this.chunks.length > 0) {
      try {
        users.push(await this.chunks.shift()!.users);
      } catch (error) {
        return { users, failed: { error } };
      }
    }
    return { users };
  }

  /** Plans no chunk not started yet; then waits for the one in flight, whatever it throws. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled(this.chunks.map((chunk) => chunk.users));
  }
}
