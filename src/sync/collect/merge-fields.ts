import type { Intent } from '../../model/intent.js';
import type { FlatParams } from '../../model/params.js';
import { membershipRank, personKey } from '../../model/person.js';
import { isSecretName } from '../../log/redaction.js';
import type { MergeSettings } from '../job-file.js';
import type { MergeConflict } from './merge-report.js';
import { describeUnit, pickUnit, type MergeUnit } from './merge-units.js';

/** The param whose disagreements the rank of memberships settles (spec §4.2). */
const MEMBERSHIP = 'user[membership]';

/** A user row waiting for the others of its person: what is spilled, one JSON line each. */
export interface Spilled {
  /** Step index. */
  s: number;
  /** Ordinal of the row among all user rows read. */
  o: number;
  i: Intent;
}

/** The step a row came from, as the job names it. */
export function stepOf(labels: readonly string[], row: Spilled): string {
  return labels[row.s] ?? `step ${row.s + 1}`;
}

/** A disagreement between the rows of one person, as the merge report shows it. */
type Settled = Omit<MergeConflict, 'key' | 'email' | 'field'>;

/**
 * What each field of a person merged from several rows takes (`PeopleMerger`): the first
 * non-empty value in the field's order (the job's `merge.users.fields`, else `precedence`,
 * else the steps' order), a membership by rank when the job gives no order, and the parts of
 * one platform object whole from one row (merge-units.ts).
 */
export class FieldDecider {
  constructor(
    private readonly labels: readonly string[],
    private readonly settings: Exclude<NonNullable<MergeSettings['users']>, false> | undefined,
    private readonly emailName: string,
  ) {}

  /** The value a field takes, and the disagreement it settled, if any. */
  decide(
    name: string,
    rows: readonly Spilled[],
    ordered: readonly Spilled[],
  ): { value: string | undefined; conflict?: Settled } {
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
      step: stepOf(this.labels, row),
      // A secret (a password) is merged like any field, but its value is never shown.
      value: isSecretName(name) ? '[redacted]' : row.i.params[name]!,
    });
    return {
      value,
      conflict: { won: show(winner), lost: lost.map(show), by: byRank ? 'membership rank' : 'precedence' },
    };
  }

  /**
   * The parts of a unit, all from the row that {@link pickUnit} picks in the unit's order: a
   * part that row leaves out stays out (an update clears it, as a field its source emptied).
   * No row filling any part, each part is decided as a field (they agree on empty).
   */
  decideUnit(
    unit: MergeUnit,
    names: readonly string[],
    rows: readonly Spilled[],
    ordered: readonly Spilled[],
  ): { values: FlatParams; conflict?: Settled } {
    const parts = [...names].sort(
      (a, b) =>
        Number(b === unit.anchor) - Number(a === unit.anchor) || a.localeCompare(b, 'en', { numeric: true }),
    );
    const own = [unit.name, ...parts].map((name) => this.fieldOrder(name)).find((list) => list !== undefined);
    const order = own === undefined ? ordered : this.inOrder(rows, own);
    const pick = pickUnit(unit, parts, order, (row) => row.i.params);
    const values: FlatParams = {};
    if (pick === undefined) {
      for (const part of parts) {
        const value = this.decide(part, rows, ordered).value;
        if (value !== undefined) values[part] = value;
      }
      return { values };
    }
    for (const part of parts) {
      const value = pick.winner.i.params[part];
      if (value !== undefined) values[part] = value;
    }
    if (pick.lost.length === 0) return { values };
    const show = (row: Spilled): { step: string; value: string } => ({
      step: stepOf(this.labels, row),
      value: describeUnit(unit, parts, row.i.params),
    });
    return {
      values,
      conflict: { won: show(pick.winner), lost: pick.lost.map(show), by: 'precedence', whole: true },
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
  inOrder(rows: readonly Spilled[], names: readonly string[] | undefined): Spilled[] {
    const rank = (row: Spilled): number => {
      const at = names?.indexOf(this.labels[row.s] ?? '') ?? -1;
      return at === -1 ? (names?.length ?? 0) + row.s : at;
    };
    return [...rows].sort((a, b) => rank(a) - rank(b) || a.o - b.o);
  }
}

/** E-mails that differ in case only are one person's: no conflict worth a line. */
function same(row: Spilled, value: string, name: string): boolean {
  return personKey(row.i.params[name]) === personKey(value);
}
