export const CSV_DELIMITERS = [',', ';', '\t', '|'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

export interface CsvDialect {
  delimiter: CsvDelimiter;
  /** Characters of Excel's `sep=X` line (with its line break) to skip; 0 when absent. */
  sepLineLength: number;
  reason: 'sep-line' | 'header' | 'configured' | 'default';
}

const SEP_LINE = /^sep=(.)[ \t]*(\r\n|\n|\r|$)/i;

/**
 * Excel's `sep=;` first line names the delimiter and is not data. Otherwise the delimiter
 * is the candidate found most often in the header line outside quotes (a header cell rarely
 * holds a delimiter, and a data line may hold many commas in free text).
 */
export function detectDialect(text: string, configured?: CsvDelimiter): CsvDialect {
  const sep = SEP_LINE.exec(text);
  const sepLineLength = sep === null ? 0 : sep[0].length;
  if (configured !== undefined) return { delimiter: configured, sepLineLength, reason: 'configured' };
  const named = sep?.[1];
  if (named !== undefined && (CSV_DELIMITERS as readonly string[]).includes(named)) {
    return { delimiter: named as CsvDelimiter, sepLineLength, reason: 'sep-line' };
  }
  const counts = countOutsideQuotes(text.slice(sepLineLength));
  let best: CsvDelimiter = ',';
  let bestCount = 0;
  for (const candidate of CSV_DELIMITERS) {
    const count = counts.get(candidate) ?? 0;
    if (count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return { delimiter: best, sepLineLength, reason: bestCount > 0 ? 'header' : 'default' };
}

/** Counts candidate delimiters in the first record, which may span lines inside quotes. */
function countOutsideQuotes(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && (CSV_DELIMITERS as readonly string[]).includes(char)) {
      counts.set(char, (counts.get(char) ?? 0) + 1);
    }
  }
  return counts;
}
