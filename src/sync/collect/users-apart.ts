import { CODE } from '../../errors/codes.js';
import type { Intent } from '../../model/intent.js';
import { freeRepeatedRowKey } from '../../model/row-origin.js';
import { KeyRegistry } from '../../mapping/key-registry.js';
import { stepLabel, type JobStep } from '../job-file.js';
import type { RowResult } from '../plan/sync-plan.js';

/** What one mapped row adds to a run (`CollectedRow`). */
interface RowRead {
  intents: Intent[];
  rowResults: RowResult[];
}

/**
 * The users of a job that keeps its steps' users apart (`merge: { users: false }`): a
 * client_id that a later step yields again is the first step's, and the later row fails
 * (`EVSYNC_DUPLICATE_KEY`), with whatever else it yields. Sent again, the repeat raced the
 * first one's send and was compared with the hash that send was changing: the platform
 * kept either step's values, by timing, and flipped on the next run (docs/sync-engine.md,
 * "Known limits"). Decided here, as the sources are read, so that a run, `evsync plan`,
 * a retry, a resume and an audit read the same rows. A step's own repeats are its
 * mapping's (`MAPPING_DUPLICATE`, `on_duplicate`). Memory: 12 bytes a user key, and each
 * repeat's result key (`failedKeys`).
 */
export class UsersApart {
  /** Each user key's first step, 1-based. */
  private readonly firstStep = new KeyRegistry();

  constructor(
    private readonly steps: readonly Pick<JobStep, 'name'>[],
    /** The keys failed rows are recorded under, shared with the reader: one result per key. */
    private readonly failedKeys: Set<string>,
  ) {}

  /** The row as step `step` read it, its intents dropped and a failed result added if it repeats a user. */
  filter(row: RowRead, step: number): RowRead {
    let repeated: Set<number> | undefined;
    const failed: RowResult[] = [];
    for (const intent of row.intents) {
      if (intent.kind !== 'user') continue;
      const first = this.firstStep.add(intent.key, step + 1);
      if (first === undefined || first === step + 1) continue;
      (repeated ??= new Set()).add(intent.origin.row);
      failed.push(this.repeat(intent, first - 1));
    }
    if (repeated === undefined) return row;
    // The whole row fails: its schedule or links are not sent without its user.
    return {
      intents: row.intents.filter((intent) => !repeated.has(intent.origin.row)),
      rowResults: [...row.rowResults, ...failed],
    };
  }

  private repeat(intent: Intent, firstStep: number): RowResult {
    // One result per key and run: `<key>#row<n>`, as repeated rows are, `.2` on if taken.
    const key = freeRepeatedRowKey(intent.key, intent.origin.row, (taken) =>
      this.failedKeys.has(`user\u0000${taken}`),
    );
    this.failedKeys.add(`user\u0000${key}`);
    const name = this.steps[firstStep]?.name;
    const first = name === undefined ? stepLabel({}, firstStep) : `step "${name}"`;
    return {
      kind: 'user',
      key,
      action: 'failed',
      origin: intent.origin,
      errorCode: CODE.EVSYNC_DUPLICATE_KEY,
      message:
        `user "${intent.key}" appears again; ${first} has it before, and its row is the one synced ` +
        "(merge: { users: false } keeps the steps' users apart). Remove or fix the duplicate row.",
      params: intent.params,
      // Still in the sources: mirror mode keeps the key.
      keptKeys: [{ kind: 'user', key: intent.key }],
    };
  }
}
