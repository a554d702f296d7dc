import type { RawRecord } from '../../sources/source-row.js';
import type { CellReader, ColumnBinder } from './column-binder.js';

/**
 * `{#Order no.}` in a template: the row's position among the rows with the same value in
 * that column so far, from 1 — the second ticket of order 1234 is `2`. It gives a key to
 * exports that have none per row (an Eventbrite UK report without attendee numbers): order
 * number plus position within the order.
 *
 * From the first row that reads a count on, every row is counted, whatever the mapping's
 * conditions make of it: a cancelled ticket keeps its place, so the tickets after it keep
 * their numbers. Stable between exports as long as the tool lists an order's tickets in the
 * same order and none is removed from the export (docs/mapping.md, "Keys from a position").
 * One count per distinct value is kept.
 */
export class OccurrenceCounter {
  private readonly columns: Array<{
    read: CellReader;
    counts: Map<string, number>;
    /** The previous row's value and its count: the map holds the counts of earlier runs. */
    last: string;
    current: number;
  }> = [];
  private readonly byLabel = new Map<string, number>();
  /** Whether a row has read a count yet (see {@link register}). */
  private active = false;

  constructor(private readonly binder: ColumnBinder) {}

  /**
   * Registers a column (with its aliases) and returns the reader of its count on the current
   * row. Counting starts with the first row that reads it: an export that has an id per row
   * (Eventbrite's attendee numbers) never reaches the `{#…}` of its `first_of` and pays
   * nothing, one without starts on its first row.
   */
  register(aliases: string[]): (values: RawRecord) => string {
    const label = aliases.join('|');
    let slot = this.byLabel.get(label);
    if (slot === undefined) {
      slot =
        this.columns.push({ read: this.binder.reader(aliases), counts: new Map(), last: '', current: 0 }) - 1;
      this.byLabel.set(label, slot);
    }
    const column = this.columns[slot]!;
    return (values) => {
      if (!this.active) {
        // This row was not counted before it was read: it is the first.
        this.active = true;
        this.count(values);
      }
      return column.current === 0 ? '' : String(column.current);
    };
  }

  /**
   * Counts the row: called once per row, before any intent of it is read. Exports list an
   * order's tickets together, so a run of one value is counted without the map, which is
   * read once and written once per run.
   */
  count(values: RawRecord): void {
    if (!this.active) return;
    for (const column of this.columns) {
      const value = trimmed(column.read(values));
      if (value === column.last && value !== '') {
        column.current += 1;
        continue;
      }
      if (column.last !== '') column.counts.set(column.last, column.current);
      column.last = value;
      // No value: no position either, so the key is empty and the row says so.
      column.current = value === '' ? 0 : (column.counts.get(value) ?? 0) + 1;
    }
  }
}

/** `' 7 '` is order 7: trimmed only when it has spaces at either end (most values have none). */
function trimmed(text: string): string {
  const end = text.length - 1;
  return end >= 0 && (text.charCodeAt(0) <= 0x20 || text.charCodeAt(end) <= 0x20) ? text.trim() : text;
}
