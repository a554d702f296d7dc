import type { Intent } from '../../model/intent.js';
import type { FlatParams } from '../../model/params.js';
import { describeOrigin } from '../../model/row-origin.js';
import { membershipRank, personKey, type PersonKey } from '../../model/person.js';
import { isSecretName } from '../../log/redaction.js';
import { emailParam } from '../../platform/vendor.js';
import { stepLabel, type JobStep, type MergeSettings } from '../job-file.js';
import { SpillBuckets } from './spill-buckets.js';

/** The param whose disagreements the rank of memberships settles (spec §4.2). */
const MEMBERSHIP = 'user[membership]';
/** Examples of merged people and of conflicts a plan shows. */
const EXAMPLES = 3;
/**
 * Merged users handed over at a time: a plan's chunk (`PLAN_CHUNK`). A bucket's users in
 * one piece were one chunk of 17,000 users at 1,000,000 people, planned, recorded and
 * queued at once.
 */
export const MERGED_CHUNK = 1000;

/** One step's row of a person, as merged. */
export interface MergeMember {
  step: string;
  key: string;
  where: string;
}

/** A field two steps gave different non-empty values for, and which won. */
export interface MergeConflict {
  key: string;
  email: string;
  field: string;
  won: { step: string; value: string };
  lost: Array<{ step: string; value: string }>;
  /** `precedence` (the job's or the steps' order) or `membership rank`. */
  by: string;
}

/** What `validate`, `plan` and `run` say about merged people (docs/sync-engine.md). */
export interface MergeReport {
  /** People described by rows of more than one step. */
  people: number;
  /** User rows those people had, all steps together. */
  rows: number;
  examples: Array<{ key: string; email: string; members: MergeMember[] }>;
  /** Fields, over all merged people, whose non-empty values disagreed. */
  conflicts: number;
  conflictExamples: MergeConflict[];
}

/** A user row waiting for the others of its person: what is spilled, one JSON line each. */
interface Spilled {
  /** Step index. */
  s: number;
  /** Ordinal of the row among all user rows read. */
  o: number;
  i: Intent;
}

/**
 * Merges the user rows of several steps that describe one person (the same normalised
 * e-mail, `personKey`) into one user intent carrying every client_id of them (`aliases`),
 * field by field: each param takes the first non-empty value in the field's order (the
 * job's `merge.users.fields`, else `precedence`, else the steps' order); `membership`,
 * when the job gives neither, takes the highest of `MEMBERSHIP_RANK`. The order is the
 * steps', never the rows', so the same sources give the same user whichever row changed.
 *
 * Every person must be whole before any of them is planned, so user rows wait in
 * {@link SpillBuckets} (files by a hash of the person once they pass a few megabytes):
 * memory holds one bucket at a time, whatever the number of users (docs/sync-engine.md,
 * "Memory").
 */
export class PeopleMerger {
  private readonly spill: SpillBuckets<Spilled>;
  private readonly labels: string[];
  private readonly emailName: string;
  private ordinal = 0;
  private readonly tally: MergeReport = {
    people: 0,
    rows: 0,
    examples: [],
    conflicts: 0,
    conflictExamples: [],
  };
  /** Sort keys of the examples kept, to keep the first ones in source order. */
  private readonly exampleOrder: number[] = [];
  /** Sort keys of the conflict examples kept, likewise. */
  private readonly conflictOrder: number[] = [];

  constructor(
    steps: readonly Pick<JobStep, 'name'>[],
    private readonly settings: Exclude<NonNullable<MergeSettings['users']>, false> | undefined,
    vendor: string,
    spillDir?: string,
  ) {
    this.labels = steps.map((step, index) => stepLabel(step, index));
    this.emailName = emailParam(vendor);
    this.spill = new SpillBuckets<Spilled>(spillDir === undefined ? {} : { dir: spillDir });
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
    await this.spill.add(person, { s: step, o: this.ordinal++, i: intent });
    return true;
  }

  /** The users, one per person, bucket by bucket; the spill is removed as it is read. */
  async *merged(): AsyncGenerator<Intent[]> {
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
      let intents: Intent[] = [];
      for (const [person, rows] of people) {
        intents.push(this.mergeOne(person, rows));
        people.delete(person);
        if (intents.length < MERGED_CHUNK) continue;
        yield intents;
        intents = [];
      }
      if (intents.length > 0) yield intents;
    }
  }

  report(): MergeReport {
    return this.tally;
  }

  async dispose(): Promise<void> {
    await this.spill.dispose();
  }

  private mergeOne(person: PersonKey, rows: Spilled[]): Intent {
    if (rows.length === 1) return rows[0]!.i;
    const ordered = this.inOrder(rows, this.settings?.precedence);
    const first = ordered[0]!;
    const params: FlatParams = {};
    const names = new Set(rows.flatMap((row) => Object.keys(row.i.params)));
    for (const name of names) {
      // The person's user is the first row's: its client_id is the intent's key.
      if (name === 'client_id') {
        params[name] = first.i.params[name] ?? first.i.key;
        continue;
      }
      const decided = this.decide(name, rows, ordered);
      if (decided.value !== undefined) params[name] = decided.value;
      if (decided.conflict)
        this.noteConflict(Math.min(...rows.map((row) => row.o)), first.i.key, person, name, decided.conflict);
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

  /** The value a field takes, and the disagreement it settled, if any. */
  private decide(
    name: string,
    rows: readonly Spilled[],
    ordered: readonly Spilled[],
  ): { value: string | undefined; conflict?: Omit<MergeConflict, 'key' | 'email' | 'field'> } {
    const own = this.fieldOrder(name);
    // The rank settles memberships only where the job gives no order at all.
    const byRank = own === undefined && this.settings?.precedence === undefined && name === MEMBERSHIP;
    const order = own === undefined ? ordered : this.inOrder(rows, own);
    const filled = order.filter((row) => (row.i.params[name] ?? '') !== '');
    if (byRank) filled.sort((a, b) => membershipRank(a.i.params[name]!) - membershipRank(b.i.params[name]!));
    const winner = filled[0];
    // Every row left it empty: the empty value (a cleared field) is what they agree on.
    if (winner === undefined) return { value: order.find((row) => name in row.i.params)?.i.params[name] };
    const value = winner.i.params[name]!;
    const lost = filled.filter((row) => row.i.params[name] !== value);
    if (lost.length === 0 || (name === this.emailName && lost.every((row) => same(row, value, name))))
      return { value };
    const show = (row: Spilled): { step: string; value: string } => ({
      step: this.labels[row.s] ?? `step ${row.s + 1}`,
      // A secret (a password) is merged like any field, but its value is never shown.
      value: isSecretName(name) ? '[redacted]' : row.i.params[name]!,
    });
    return {
      value,
      conflict: { won: show(winner), lost: lost.map(show), by: byRank ? 'membership rank' : 'precedence' },
    };
  }

  /** The job's order for this field, if it gives one (`membership` stands for `user[membership]`). */
  private fieldOrder(name: string): readonly string[] | undefined {
    const fields = this.settings?.fields;
    if (!fields) return undefined;
    const short = /^user\[([^\]]+)\]$/.exec(name)?.[1];
    return fields[name] ?? (short === undefined ? undefined : fields[short]);
  }

  /** Rows in the order of `names` (steps not named come after, in the job's order), then as read. */
  private inOrder(rows: readonly Spilled[], names: readonly string[] | undefined): Spilled[] {
    const rank = (row: Spilled): number => {
      const at = names?.indexOf(this.labels[row.s] ?? '') ?? -1;
      return at === -1 ? (names?.length ?? 0) + row.s : at;
    };
    return [...rows].sort((a, b) => rank(a) - rank(b) || a.o - b.o);
  }

  private noteMerged(person: PersonKey, first: Spilled, ordered: readonly Spilled[]): void {
    this.tally.people += 1;
    this.tally.rows += ordered.length;
    const order = Math.min(...ordered.map((row) => row.o));
    if (this.tally.examples.length >= EXAMPLES && order > this.exampleOrder[EXAMPLES - 1]!) return;
    const members = ordered.map((row) => ({
      step: this.labels[row.s] ?? `step ${row.s + 1}`,
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

/** E-mails that differ in case only are one person's: no conflict worth a line. */
function same(row: Spilled, value: string, name: string): boolean {
  return personKey(row.i.params[name]) === personKey(value);
}

/** The lines `validate`, `plan` and `run` print about merged people, none when nobody was. */
export function formatMergeReport(report: MergeReport | undefined): string[] {
  if (!report || report.people === 0) return [];
  const lines = [
    `Merged people: ${report.people} people described by ${report.rows} rows of several steps are ` +
      `${report.people} users (docs/sync-engine.md, "One person, many sources").`,
  ];
  for (const example of report.examples) {
    lines.push(`  ${example.email} → user ${example.key}`);
    for (const member of example.members) lines.push(`      ${member.step}: ${member.key} (${member.where})`);
  }
  if (report.conflicts > 0) {
    lines.push(`Conflicts: ${report.conflicts} fields had different values in different steps; the first:`);
    for (const c of report.conflictExamples) {
      const lost = c.lost.map((l) => `${l.step} "${l.value}"`).join(', ');
      lines.push(`  ${c.email} ${c.field}: ${c.won.step} "${c.won.value}" wins over ${lost} (${c.by})`);
    }
  }
  return lines;
}
