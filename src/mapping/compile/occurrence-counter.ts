import type { RawRecord } from '../../sources/source-row.js';
import type { CellReader, ColumnBinder } from './column-binder.js';

/**
 * `{#Order no.}` in a template: the row's position among the rows with the same value in
 * that column so far, from 1 — the second ticket of order 1234 is `2`. It gives a key to
 * exports that have none per row (an Eventbrite UK report without attendee numbers): order
 * number plus position within the order.
 *
 * Every row is counted, whatever the mapping's conditions make of it: a cancelled ticket
 * keeps its place, so the tickets after it keep their numbers. Stable between exports as
 * long as the tool lists an order's tickets in the same order and none is removed from the
 * export (docs/mapping.md, "Keys from a position"). One count per distinct value is kept.
 */
export class OccurrenceCounter {
  private readonly columns: Array<{ read: CellReader; counts: Map<string, number>; current: number }> = [];
  private readonly byLabel = new Map<string, number>();

  constructor(private readonly binder: ColumnBinder) {}

  /** Registers a column (with its aliases) and returns the reader of its count on the current row. */
  register(aliases: string[]): () => string {
    const label = aliases.join('|');
    let slot = this.byLabel.get(label);
    if (slot === undefined) {
      slot = this.columns.push({ read: this.binder.reader(aliases), counts: new Map(), current: 0 }) - 1;
      this.byLabel.set(label, slot);
    }
    const column = this.columns[slot]!;
    return () => (column.current === 0 ? '' : String(column.current));
  }

  get used(): boolean {
    return this.columns.length > 0;
  }

  /** Counts the row: called once per row, before any intent of it is compiled. */
  count(values: RawRecord): void {
    for (const column of this.columns) {
      const value = column.read(values).trim();
      if (value === '') {
        // No order number: no position either, so the key is empty and the row says so.
        column.current = 0;
        continue;
      }
      const next = (column.counts.get(value) ?? 0) + 1;
      column.counts.set(value, next);
      column.current = next;
    }
  }
}
