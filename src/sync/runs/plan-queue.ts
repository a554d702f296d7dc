import type { PlannedIntent } from '../../model/planned-intent.js';

/**
 * The chunks of a streamed plan being planned, in source order, each once the one before is
 * planned: a chunk whose plan failed leaves the next unplanned and throws when drained.
 */
export class PlanQueue {
  private readonly chunks: Array<{ users: Promise<PlannedIntent[]>; settled: boolean }> = [];

  add(plan: () => Promise<PlannedIntent[]>): void {
    const before = this.chunks.at(-1)?.users;
    const entry = { users: before ? before.then(plan) : plan(), settled: false };
    const settle = (): void => void (entry.settled = true);
    // Waited for by `drain`, which throws what it threw.
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
    for (const users of await this.all()) if (users.length > 0) yield users;
  }

  /** Every chunk's users, once all are planned. */
  async all(): Promise<PlannedIntent[][]> {
    const users: PlannedIntent[][] = [];
    while (this.chunks.length > 0) users.push(await this.chunks.shift()!.users);
    return users;
  }

  /** Once no chunk is being planned, whatever they threw. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.chunks.map((chunk) => chunk.users));
  }
}
