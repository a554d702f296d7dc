import { CODE, type ErrorCode } from '../../errors/codes.js';
import type { Intent } from '../../model/intent.js';
import type { FlatParams } from '../../model/params.js';
import { describeOrigin, freeRepeatedRowKey } from '../../model/row-origin.js';
import { namesAgree, personKey, type PersonKey } from '../../model/person.js';
import { emailParam } from '../../platform/vendor.js';
import { stepLabel, type JobStep, type MergeSettings } from '../job-file.js';
import type { RowResult } from '../plan/sync-plan.js';
import { SpillBuckets } from './spill-buckets.js';
import type { MergeConflict, MergeReport } from './merge-report.js';
import { unitOf, type MergeUnit } from './merge-units.js';
import { FieldDecider, stepOf, type Spilled } from './merge-fields.js';

export { formatMergeReport, type MergeConflict, type MergeMember, type MergeReport } from './merge-report.js';

/** Examples of merged people and of conflicts a plan shows. */
const EXAMPLES = 3;
/**
 * Merged users handed over at a time: a plan's chunk (`PLAN_CHUNK`). A bucket's users in
 * one piece were one chunk of 17,000 users at 1,000,000 people, planned, recorded and
 * queued at once.
 */
export const MERGED_CHUNK = 1000;

/** The users of a bucket of people, and the rows of people the steps disagree on. */
export interface MergedUsers {
  intents: Intent[];
  rowResults: RowResult[];
}

/** The platform users that several client_ids name, as a merge checks them (`PeopleMerger`). */
export interface SharedAccounts {
  /** The id map's groups of client_ids that share one platform id (`Ledger.keysSharingIds`). */
  groups(): Promise<readonly (readonly string[])[]>;
  /**
   * Whether the platform holds these keys on one user: an id map that a platform reset made
   * stale gives two people's keys one id, and they were never merged. Absent, the id map is
   * believed (`evsync plan`, which asks the platform nothing).
   */
  confirm?(keys: readonly string[]): Promise<boolean>;
}

/** Why a person's rows are refused: the code and the message each of them fails with. */
interface Refusal {
  code: ErrorCode;
  message: string;
}

/** One row's use of a client_id, spilled by the client_id: who it says the key is. */
interface KeyUse {
  k: string;
  p: string;
  /** The row, as a message names it: `comp: comp.csv row 2 (bob@example.org, "Bob C")`. */
  w: string;
}

/**
 * Merges the user rows of several steps that describe one person (the same normalised
 * e-mail, `personKey`) into one user intent carrying every client_id of them (`aliases`),
 * field by field: each param takes the first non-empty value in the field's order (the
 * job's `merge.users.fields`, else `precedence`, else the steps' order); `membership`,
 * when the job gives neither, takes the highest of `MEMBERSHIP_RANK`. The parts of one
 * object of the platform (company and position, an address…: `MERGE_UNITS`) come whole from
 * one row. The order is the
 * steps', never the rows', so the same sources give the same user whichever row changed.
 *
 * Every person must be whole before any of them is planned, so user rows wait in
 * {@link SpillBuckets} (files by a hash of the person once they pass a few megabytes):
 * memory holds one bucket at a time, whatever the number of users (docs/sync-engine.md,
 * "Memory").
 */
export class PeopleMerger {
  private readonly spill: SpillBuckets<Spilled>;
  /** Every user row's client_id and person, by client_id: one key of two people is refused. */
  private readonly keyUses: SpillBuckets<KeyUse>;
  /** Keys of rows refused so far: a second row of one key is recorded as `<key>#row<n>`. */
  private readonly refusedKeys = new Set<string>();
  private readonly labels: string[];
  private readonly emailName: string;
  /** What each field of a merged person takes, and which disagreements it settles. */
  private readonly fields: FieldDecider;
  private ordinal = 0;
  private readonly tally: MergeReport = {
    people: 0,
    rows: 0,
    examples: [],
    conflicts: 0,
    conflictExamples: [],
    refused: 0,
    refusedExamples: [],
  };
  /** Sort keys of the examples kept, to keep the first ones in source order. */
  private readonly exampleOrder: number[] = [];
  /** Sort keys of the conflict examples kept, likewise. */
  private readonly conflictOrder: number[] = [];

  constructor(
    steps: readonly Pick<JobStep, 'name'>[],
    private readonly settings: Exclude<NonNullable<MergeSettings['users']>, false> | undefined,
    vendor: string,
    /**
     * The keys an earlier run merged into one platform user, read once every step is read;
     * without it, a person the sources split again is not noticed.
     */
    private readonly sharedAccounts?: SharedAccounts,
    spillDir?: string,
  ) {
    this.labels = steps.map((step, index) => stepLabel(step, index));
    this.emailName = emailParam(vendor);
    this.fields = new FieldDecider(this.labels, settings, this.emailName);
    this.spill = new SpillBuckets<Spilled>(spillDir === undefined ? {} : { dir: spillDir });
    this.keyUses = new SpillBuckets<KeyUse>(spillDir === undefined ? {} : { dir: spillDir });
  }

  /** Whether `intent` waits here for the rest of its person: a user with an e-mail. */
  accepts(intent: Intent): boolean {
    return intent.kind === 'user' && personKey(intent.params[this.emailName]) !== undefined;
  }

  /** Keeps `intent` to be merged if it {@link accepts} it; answers whether it did. */
  async take(step: number, intent: Intent): Promise<boolean> {
    if (intent.kind !== 'user') return false;
    const person = personKey(intent.params[this.emailName]);
    if (person === undefined) return false;
    // Without the mapping's hash: its params would be written twice, and a merged user is hashed anew.
    const { knownHash: _hashed, ...kept } = intent;
    const row: Spilled = { s: step, o: this.ordinal++, i: kept };
    await this.spill.add(person, row);
    await this.keyUses.add(intent.key, { k: intent.key, p: person, w: this.rowName(row) });
    return true;
  }

  /**
   * The users, one per person, bucket by bucket; the spill is removed as it is read. The
   * rows of people the steps disagree on come as failed results instead (see
   * {@link MergeReport.refused}): a client_id two people were given refuses both people, as
   * do keys of one platform user that the sources now give to two people; a row giving the
   * person's e-mail under another name than the first row's is refused.
   */
  async *merged(): AsyncGenerator<MergedUsers> {
    const refused = await this.peopleInDispute();
    for await (const bucket of this.spill.drain()) {
      const people = new Map<PersonKey, Spilled[]>();
      for (const row of bucket) {
        const person = personKey(row.i.params[this.emailName])!;
        const rows = people.get(person);
        if (rows) rows.push(row);
        else people.set(person, [row]);
      }
      // Source order within a bucket, so that a plan's chunks follow the sources where they
      // can; a plan's chunk at a time, so that no more than that waits to be planned and sent.
      let out: MergedUsers = { intents: [], rowResults: [] };
      for (const [person, rows] of people) {
        people.delete(person);
        const refusal = refused.get(person);
        if (refusal !== undefined) {
          for (const row of rows) out.rowResults.push(this.refuse(row, refusal.code, refusal.message));
          continue;
        }
        // Each row kept agrees with every row kept before it, in the fields' order: "A. Lee"
        // agrees with "Ann Lee" and with "Abe Lee", who are still two people.
        const same: Spilled[] = [];
        const apart = new Map<Spilled, Spilled>();
        for (const row of this.fields.inOrder(rows, this.settings?.precedence)) {
          const other = same.find((kept) => !namesAgree(nameOf(row.i), nameOf(kept.i)));
          if (other === undefined) same.push(row);
          else apart.set(row, other);
        }
        for (const row of rows) {
          const other = apart.get(row);
          if (other !== undefined)
            out.rowResults.push(
              this.refuse(
                row,
                CODE.MAPPING_SHARED_EMAIL,
                `${this.rowName(row)} gives the e-mail of ${this.rowName(other)} to another person: the platform keys users by e-mail, so this row is not sent; put this person's own e-mail in the source`,
              ),
            );
        }
        out.intents.push(this.mergeOne(person, same));
        if (out.intents.length < MERGED_CHUNK) continue;
        yield out;
        out = { intents: [], rowResults: [] };
      }
      if (out.intents.length > 0 || out.rowResults.length > 0) yield out;
    }
  }

  /**
   * The people whose rows give one client_id to someone else too, and those whose key an
   * earlier run merged with another person's into one platform user, each with what its rows
   * fail with. Read from the client_id spill once every step is read; such people are few,
   * so they are held in memory.
   */
  private async peopleInDispute(): Promise<Map<PersonKey, Refusal>> {
    const refused = new Map<PersonKey, Refusal>();
    const shared = (await this.sharedAccounts?.groups()) ?? [];
    const sharing = new Set(shared.flat());
    /** The first use of each key of a shared account, as this run's rows give it. */
    const usesOfShared = new Map<string, KeyUse>();
    for await (const bucket of this.keyUses.drain()) {
      const byKey = new Map<string, KeyUse[]>();
      for (const use of bucket) {
        const uses = byKey.get(use.k);
        if (uses) uses.push(use);
        else byKey.set(use.k, [use]);
      }
      for (const [key, uses] of byKey) {
        if (sharing.has(key)) usesOfShared.set(key, uses[0]!);
        const people = new Set(uses.map((use) => use.p as PersonKey));
        if (people.size < 2) continue;
        const shown = uses.slice(0, 5).map((use) => use.w);
        const more = uses.length > shown.length ? `; and ${uses.length - shown.length} more` : '';
        const message =
          `client_id "${key}" is given to ${people.size} different people: ${shown.join('; ')}${more}. ` +
          `No row of theirs is sent, so that nobody is merged into another: give each person their own client_id in the sources (or one e-mail, if they are one person)`;
        for (const person of people)
          if (!refused.has(person)) refused.set(person, { code: CODE.EVSYNC_ONE_KEY_TWO_PEOPLE, message });
      }
    }
    for (const keys of shared) await this.refuseSplit(keys, usesOfShared, refused);
    return refused;
  }

  /**
   * The keys of one platform user that an earlier run merged (`keys`), when this run's rows
   * give them to different people (different e-mails): planned apart, each would update
   * that one account and the last sent would win, a comp list's new address over the
   * tickets' or the other way round, by the order of the spill. Every person of them is
   * refused, and the account keeps what it has until the sources agree again.
   */
  private async refuseSplit(
    keys: readonly string[],
    uses: ReadonlyMap<string, KeyUse>,
    refused: Map<PersonKey, Refusal>,
  ): Promise<void> {
    const present = keys.filter((key) => uses.has(key));
    const people = new Set(present.map((key) => uses.get(key)!.p as PersonKey));
    if (people.size < 2) return;
    if (this.sharedAccounts?.confirm && !(await this.sharedAccounts.confirm(present))) return;
    const named = present.map((key) => `"${key}"`);
    const message =
      `client_ids ${named.slice(0, -1).join(', ')} and ${named[named.length - 1]} are one platform user, merged as one person by an earlier run, ` +
      `and this run's rows give them ${people.size} different e-mails: ${present.map((key) => uses.get(key)!.w).join('; ')}. ` +
      'Sent apart, each would overwrite the other on that one account, so no row of theirs is sent. ' +
      'If they are one person, give them the same e-mail in every source; if a key now names someone else, give that person a client_id of their own';
    for (const person of people)
      if (!refused.has(person)) refused.set(person, { code: CODE.EVSYNC_MERGED_PERSON_SPLIT, message });
  }

  /** A row of a person the steps disagree on, as its failed result. */
  private refuse(row: Spilled, code: ErrorCode, message: string): RowResult {
    const id = row.i.key;
    // One result per key and run: a second row of the key is `<key>#row<n>`, as repeated rows are.
    const key = this.refusedKeys.has(id)
      ? freeRepeatedRowKey(id, row.i.origin.row, (taken) => this.refusedKeys.has(taken))
      : id;
    this.refusedKeys.add(key);
    this.tally.refused += 1;
    if (this.tally.refusedExamples.length < EXAMPLES)
      this.tally.refusedExamples.push(`${this.rowName(row)}: ${message}`);
    return {
      kind: 'user',
      key,
      action: 'failed',
      origin: row.i.origin,
      errorCode: code,
      message,
      params: row.i.params,
      keptKeys: [{ kind: 'user', key: id }],
    };
  }

  /** `comp: comp.csv row 2 (bob@example.org, "Bob C")`. */
  private rowName(row: Spilled): string {
    const step = stepOf(this.labels, row);
    const email = row.i.params[this.emailName] ?? '';
    return `${step}: ${row.i.origin.source} ${describeOrigin(row.i.origin)} (${email}, "${nameOf(row.i)}")`;
  }

  report(): MergeReport {
    return this.tally;
  }

  async dispose(): Promise<void> {
    await this.spill.dispose();
    await this.keyUses.dispose();
  }

  private mergeOne(person: PersonKey, rows: Spilled[]): Intent {
    if (rows.length === 1) return rows[0]!.i;
    const ordered = this.fields.inOrder(rows, this.settings?.precedence);
    const first = ordered[0]!;
    const params: FlatParams = {};
    const names = new Set(rows.flatMap((row) => Object.keys(row.i.params)));
    const order = Math.min(...rows.map((row) => row.o));
    const units = new Map<MergeUnit, string[]>();
    for (const name of names) {
      // The person's user is the first row's: its client_id is the intent's key.
      if (name === 'client_id') {
        params[name] = first.i.params[name] ?? first.i.key;
        continue;
      }
      const unit = unitOf(name);
      if (unit !== undefined) {
        const parts = units.get(unit);
        if (parts) parts.push(name);
        else units.set(unit, [name]);
        continue;
      }
      const decided = this.fields.decide(name, rows, ordered);
      if (decided.value !== undefined) params[name] = decided.value;
      if (decided.conflict) this.noteConflict(order, first.i.key, person, name, decided.conflict);
    }
    for (const [unit, parts] of units) {
      const decided = this.fields.decideUnit(unit, parts, rows, ordered);
      Object.assign(params, decided.values);
      if (decided.conflict) this.noteConflict(order, first.i.key, person, unit.name, decided.conflict);
    }
    const aliases = [...new Set(ordered.map((row) => row.i.key))].filter((key) => key !== first.i.key);
    // Not carried only when no row's source carries it: a source that does and leaves it
    // empty clears it.
    const uncarried = (first.i.uncarried ?? []).filter(
      (name) => params[name] === undefined && rows.every((row) => row.i.uncarried?.includes(name)),
    );
    this.noteMerged(person, first, ordered);
    const { uncarried: _first, ...merged } = first.i;
    return {
      ...merged,
      params,
      ...(aliases.length > 0 ? { aliases } : {}),
      ...(uncarried.length > 0 ? { uncarried } : {}),
    };
  }

  private noteMerged(person: PersonKey, first: Spilled, ordered: readonly Spilled[]): void {
    this.tally.people += 1;
    this.tally.rows += ordered.length;
    const order = Math.min(...ordered.map((row) => row.o));
    if (this.tally.examples.length >= EXAMPLES && order > this.exampleOrder[EXAMPLES - 1]!) return;
    const members = ordered.map((row) => ({
      step: stepOf(this.labels, row),
      key: row.i.key,
      where: `${row.i.origin.source} ${describeOrigin(row.i.origin)}`,
    }));
    const at = this.exampleOrder.findIndex((o) => o > order);
    const index = at === -1 ? this.exampleOrder.length : at;
    this.exampleOrder.splice(index, 0, order);
    this.tally.examples.splice(index, 0, { key: first.i.key, email: person, members });
    this.exampleOrder.length = Math.min(this.exampleOrder.length, EXAMPLES);
    this.tally.examples.length = Math.min(this.tally.examples.length, EXAMPLES);
  }

  /**
   * The first conflicts in source order (`order`: the person's first row), as the examples
   * of merged people: people come bucket by bucket, in an order the spill's hash decides.
   */
  private noteConflict(
    order: number,
    key: string,
    email: string,
    field: string,
    conflict: Omit<MergeConflict, 'key' | 'email' | 'field'>,
  ): void {
    this.tally.conflicts += 1;
    const examples = this.tally.conflictExamples;
    if (examples.length >= EXAMPLES && order >= this.conflictOrder[EXAMPLES - 1]!) return;
    // After the person's conflicts already noted: a person's fields keep their order.
    const at = this.conflictOrder.findIndex((o) => o > order);
    const index = at === -1 ? this.conflictOrder.length : at;
    this.conflictOrder.splice(index, 0, order);
    examples.splice(index, 0, { key, email, field, ...conflict });
    this.conflictOrder.length = Math.min(this.conflictOrder.length, EXAMPLES);
    examples.length = Math.min(examples.length, EXAMPLES);
  }
}

/** The name a user row gives: its first and last name. */
function nameOf(intent: Intent): string {
  return [intent.params['user[first_name]'] ?? '', intent.params['user[last_name]'] ?? '']
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .join(' ');
}
