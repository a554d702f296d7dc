import { quote } from '../../platform/write-params/text-rules.js';

/** Values a note names per lookup; the rest are counted. */
const SHOWN = 8;
/** Distinct values counted per lookup: a column of free text must not grow without bound. */
const KEPT = 100;

interface Tally {
  where: string;
  fallback: string;
  rows: number;
  /** Value → rows, in the order first met. */
  values: Map<string, number>;
}

/**
 * The values each lookup of a bound mapping gave its `default` to, said once the source is
 * read (docs/mapping.md, "Transforms"): a product the table lacks (pretix's `Speaker Ticket
 * – Two days`) made a speaker a `member` without a word.
 */
export class LookupDefaults {
  private readonly tallies: Tally[] = [];

  /** Counts the values one lookup (reading `where`) did not find, and so gave `fallback`. */
  tally(where: string, fallback: string): (value: string) => void {
    const tally: Tally = { where, fallback, rows: 0, values: new Map() };
    this.tallies.push(tally);
    return (value) => {
      tally.rows += 1;
      const rows = tally.values.get(value);
      if (rows !== undefined) tally.values.set(value, rows + 1);
      else if (tally.values.size < KEPT) tally.values.set(value, 1);
    };
  }

  /** One line per lookup that gave its default to a value. */
  notes(): string[] {
    return this.tallies
      .filter((tally) => tally.rows > 0)
      .map(({ where, fallback, rows, values }) => {
        const shown = [...values]
          .slice(0, SHOWN)
          .map(([value, count]) => `${quote(value)} (${count} row${count === 1 ? '' : 's'})`);
        const more = values.size > SHOWN ? `, and more` : '';
        return (
          `${where}: ${rows} row${rows === 1 ? ' has a value' : 's have values'} not in the mapping's lookup table, ` +
          `given its default ${quote(fallback)}: ${shown.join(', ')}${more}. ` +
          `Add to the table each value that means something else`
        );
      });
  }
}
