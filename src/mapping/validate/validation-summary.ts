import { CODE } from '../../errors/codes.js';
import { describeOrigin } from '../../model/row-origin.js';
import type { IntentKind } from '../../model/intent.js';
import type { MappedItem } from '../mapped-item.js';

/** The code of a repeated row in `evsync validate`, by its `on_duplicate` policy. */
export const DUPLICATE_CODE = { first: CODE.DUPLICATE_FIRST, last: CODE.DUPLICATE_LAST } as const;

/** Problems of one kind (same code, same column), with the first few rows that have them. */
export interface ProblemGroup {
  code: string;
  field: string;
  count: number;
  /** The first messages, each naming its row. */
  examples: string[];
}

/** How many examples each group keeps: enough to find the pattern, bounded for 1M rows. */
const EXAMPLES = 3;

/**
 * Counts what a mapping made of a source, in bounded memory: rows, intents per kind,
 * skipped rows per reason, duplicates, and invalid rows grouped by problem kind.
 */
export class ValidationSummary {
  rowsRead = 0;
  rowsValid = 0;
  rowsInvalid = 0;
  rowsSkipped = 0;
  rowsDuplicate = 0;
  rowsGrouped = 0;
  /** Grouped schedules that failed validation as a whole. */
  groupsInvalid = 0;
  readonly intents = new Map<IntentKind, number>();
  readonly skipped = new Map<string, ProblemGroup>();
  readonly duplicates = new Map<string, ProblemGroup>();
  readonly problems = new Map<string, ProblemGroup>();

  add(item: MappedItem): void {
    // A user's schedule comes after the rows it was gathered from: it is not a row itself.
    const isRow = !('groupedRows' in item && item.groupedRows !== undefined);
    if (isRow) this.rowsRead++;
    switch (item.type) {
      case 'intents':
        if (isRow) this.rowsValid++;
        for (const intent of item.intents)
          this.intents.set(intent.kind, (this.intents.get(intent.kind) ?? 0) + 1);
        break;
      case 'grouped':
        this.rowsGrouped++;
        break;
      case 'skipped':
        this.rowsSkipped++;
        record(
          this.skipped,
          CODE.SKIPPED,
          reasonKind(item.reason),
          `${describeOrigin(item.origin)}: ${item.reason}`,
        );
        break;
      case 'duplicate':
        this.rowsDuplicate++;
        for (const replaced of item.replaces ?? [])
          this.intents.set(replaced.kind, (this.intents.get(replaced.kind) ?? 0) - 1);
        for (const intent of item.intents)
          this.intents.set(intent.kind, (this.intents.get(intent.kind) ?? 0) + 1);
        record(this.duplicates, DUPLICATE_CODE[item.policy], item.kind, item.message);
        break;
      case 'invalid':
        if (isRow) this.rowsInvalid++;
        else this.groupsInvalid++;
        for (const problem of item.problems)
          record(this.problems, problem.code, problem.field, problem.message);
        break;
    }
  }

  get allValid(): boolean {
    return this.rowsInvalid === 0 && this.groupsInvalid === 0;
  }
}

function record(groups: Map<string, ProblemGroup>, code: string, field: string, message: string): void {
  const id = `${code}\u0000${field}`;
  let group = groups.get(id);
  if (group === undefined) {
    group = { code, field, count: 0, examples: [] };
    groups.set(id, group);
  }
  group.count++;
  if (group.examples.length < EXAMPLES) group.examples.push(message);
}

/** Skip reasons quote the row's value; grouping is by the part before the quote. */
/**
 * The part of a skip reason that is the same for every row it skips: the mapping's
 * `reason:` without the row's own fact in brackets, else the fact up to its value.
 */
function reasonKind(reason: string): string {
  const withoutFact = reason.replace(/ \([^()]*\)$/, '');
  if (withoutFact !== reason) return withoutFact;
  const quote = reason.indexOf('"');
  return quote === -1 ? reason : reason.slice(0, quote).trim();
}
