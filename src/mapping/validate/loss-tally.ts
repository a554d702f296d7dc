import { INTENT_KINDS, type IntentKind } from '../../model/intent.js';

/** What became of one row (or one planned intent) of a kind. */
export type TallyOutcome = 'kept' | 'skipped' | 'invalid';

interface Group {
  outcome: Exclude<TallyOutcome, 'kept'>;
  count: number;
  /** The reason as a person reads it, without the row's own value. */
  reason: string;
  fix: string;
}

/**
 * Counts, per kind, what was kept and why the rest was lost, so that a kind losing most of
 * its rows for one reason is said in one line with its fix (`validate`, `plan` and `run`
 * print it above their tables): a table line such as `user 0 created, 92 skipped` does not
 * say that every speaker is missing for want of an e-mail.
 */
export class LossTally {
  private readonly totals = new Map<IntentKind, number>();
  private readonly groups = new Map<IntentKind, Map<string, Group>>();

  /** `count` rows (one unless said) of the kind had this outcome. */
  add(kind: IntentKind, outcome: TallyOutcome, reason = '', fix = '', count = 1): void {
    this.totals.set(kind, (this.totals.get(kind) ?? 0) + count);
    if (outcome === 'kept') return;
    const reasonKey = `${outcome}\u0000${reason}`;
    let groups = this.groups.get(kind);
    if (groups === undefined) this.groups.set(kind, (groups = new Map<string, Group>()));
    const group = groups.get(reasonKey) ?? { outcome, count: 0, reason, fix };
    group.count += count;
    groups.set(reasonKey, group);
  }

  /** One line per kind whose largest single reason takes more than half of its rows. */
  lines(): string[] {
    const out: string[] = [];
    // In the order the tables list the kinds: users before the links that need them.
    const kinds = INTENT_KINDS.filter((kind) => this.groups.has(kind));
    for (const kind of kinds) {
      const groups = this.groups.get(kind)!;
      const total = this.totals.get(kind) ?? 0;
      const largest = [...groups.values()].sort((a, b) => b.count - a.count)[0];
      if (largest === undefined || largest.count * 2 <= total) continue;
      const what = largest.count === total ? `all ${total}` : `${largest.count} of ${total}`;
      out.push(
        `${kind}: ${what} ${total === 1 ? 'row' : 'rows'} ${largest.outcome}: ${largest.reason}${largest.fix ? `. ${largest.fix}` : ''}`,
      );
    }
    return out;
  }
}

/**
 * The part of a skip reason that is the same for every row it skips: the mapping's
 * `reason:` without the row's own fact in brackets, else the fact up to its value.
 */
export function reasonKind(reason: string): string {
  const withoutFact = reason.replace(/ \([^()]*\)$/, '');
  if (withoutFact !== reason) return withoutFact;
  // A fact with brackets of its own (a header's column names): from the first bracket on.
  const open = reason.indexOf(' (');
  if (open > 0 && reason.endsWith(')')) return reason.slice(0, open);
  const quote = reason.indexOf('"');
  return quote === -1 ? reason : reason.slice(0, quote).trim();
}
