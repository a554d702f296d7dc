import { quote } from '../../platform/write-params/text-rules.js';

/** Keys a note names; the rest are counted. */
const SHOWN = 8;
/** Distinct keys counted: a header is finite, but a JSON column's keys need not be. */
const KEPT = 100;

/**
 * The keys a custom_data column's object and a kept column both filled, with differing
 * values, per bound header, said once the source is read: the object's value was sent and
 * the column's was not (docs/mapping.md, "Columns no mapping reads"), which must not pass
 * in silence.
 */
export class CustomDataOverrides {
  private rows = 0;
  private lastRow: unknown;
  /** Key → rows, in the order first met. */
  private readonly keys = new Map<string, number>();

  constructor(private readonly base: string) {}

  /** Counts one key of one row (`row`: the row's values, to count each row once). */
  count(key: string, row: unknown): void {
    if (row !== this.lastRow) {
      this.rows += 1;
      this.lastRow = row;
    }
    const rows = this.keys.get(key);
    if (rows !== undefined) this.keys.set(key, rows + 1);
    else if (this.keys.size < KEPT) this.keys.set(key, 1);
  }

  notes(): string[] {
    if (this.rows === 0) return [];
    const shown = [...this.keys]
      .slice(0, SHOWN)
      .map(([key, count]) => `${quote(key)} (${count} row${count === 1 ? '' : 's'})`);
    const more = this.keys.size > SHOWN ? ', and more' : '';
    return [
      `custom_data: on ${this.rows} row${this.rows === 1 ? '' : 's'} the JSON object in ${this.base} ` +
        `and a column of the same name give a key different values; the object's value was sent: ` +
        `${shown.join(', ')}${more}. Rename the column, or the key, to keep both`,
    ];
  }
}
