import { CODE } from '../../errors/codes.js';
import { describeOrigin } from '../../model/row-origin.js';
import type { IntentKind } from '../../model/intent.js';
import { failingProblem, type MappedItem } from '../mapped-item.js';
import { LossTally, reasonKind } from './loss-tally.js';

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
  /** Skipped because a value they need is empty (see `SkippedItem.incomplete`). */
  rowsIncomplete = 0;
  rowsDuplicate = 0;
  rowsGrouped = 0;
  /** Rows sent without an optional field they got wrong (see `IntentsItem.warnings`). */
  rowsWarned = 0;
  /** Grouped schedules that failed validation as a whole. */
  groupsInvalid = 0;
  readonly intents = new Map<IntentKind, number>();
  readonly skipped = new Map<string, ProblemGroup>();
  readonly duplicates = new Map<string, ProblemGroup>();
  readonly problems = new Map<string, ProblemGroup>();
  /** The fields left out of rows that are still sent, grouped as problems are. */
  readonly warnings = new Map<string, ProblemGroup>();
  /** Per kind: rows kept and rows lost, for the one-line warning of a kind that loses most. */
  readonly losses = new LossTally();

  add(item: MappedItem): void {
    // A user's schedule comes after the rows it was gathered from: it is not a row itself.
    const isRow = !('groupedRows' in item && item.groupedRows !== undefined);
    if (isRow) this.rowsRead++;
    if (
      (item.type === 'intents' || item.type === 'duplicate') &&
      item.warnings !== undefined &&
      item.intents.length > 0
    ) {
      this.rowsWarned++;
      for (const warning of item.warnings)
        record(this.warnings, warning.code, warning.field, warning.message);
    }
    switch (item.type) {
      case 'intents':
        if (isRow) this.rowsValid++;
        for (const intent of item.intents) {
          this.intents.set(intent.kind, (this.intents.get(intent.kind) ?? 0) + 1);
          this.losses.add(intent.kind, 'kept');
        }
        break;
      case 'grouped':
        this.rowsGrouped++;
        break;
      case 'skipped':
        this.rowsSkipped++;
        if (item.incomplete) this.rowsIncomplete++;
        if (item.kind !== undefined) this.losses.add(item.kind, 'skipped', reasonKind(item.reason));
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
      case 'invalid': {
        if (isRow) this.rowsInvalid++;
        else this.groupsInvalid++;
        for (const problem of item.problems)
          record(this.problems, problem.code, problem.field, problem.message);
        const reason = failingProblem(item);
        if (item.kind !== undefined && isRow && reason !== undefined) {
          const { code, field } = reason;
          this.losses.add(
            item.kind,
            'invalid',
            field ? `${code} in ${field}` : code,
            code === CODE.MAPPING_COLUMN_MISSING
              ? "The source's header lacks that column: see below"
              : 'The rows are listed below',
          );
        }
        break;
      }
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
