import { CODE } from '../../errors/codes.js';
import { SourceError } from '../source-error.js';

/**
 * A query's result columns, checked before its first row is used. Both drivers make each
 * row an object keyed by column name, so of two columns named alike (`a.email` and
 * `c.email` of a join) the last silently wins: an assistant's address on her boss's account,
 * or a left join's NULL where the e-mail was. Like a CSV header that names a column twice
 * (`CSV_DUPLICATE_HEADER`), such a query stops the step, naming every repeated name and
 * where it stands (1-based, in the order of the SELECT list).
 */
export function assertDistinctColumns(names: readonly string[], label: string, database: string): void {
  const positions = new Map<string, number[]>();
  names.forEach((name, index) => positions.set(name, [...(positions.get(name) ?? []), index + 1]));
  const repeated = [...positions].filter(([, at]) => at.length > 1);
  if (repeated.length === 0) return;
  const list = repeated.map(([name, at]) => `"${name}" (columns ${at.join(', ')})`).join('; ');
  throw new SourceError(
    `${label} returns the same column name more than once in ${database}: ${list}. ` +
      "Each row would keep only the last of them: give each a name of its own with AS in the job's " +
      'query (SELECT a.email, c.email AS contact_email …)',
    { code: CODE.SOURCE_DUPLICATE_COLUMN },
  );
}
