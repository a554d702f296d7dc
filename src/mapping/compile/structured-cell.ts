import type { SimpleValueSpec } from '../mapping-file-schema.js';

/**
 * The column a custom_data key reads as it is, without transforms (`tshirt`, `[Size, Größe]`,
 * `{ column: prefs }`): its cell may keep its JSON type. A key with transforms, a template,
 * a constant or `first_of` is text, as the mapping asks.
 */
export function bareColumn(spec: SimpleValueSpec): string | string[] | undefined {
  if (typeof spec === 'string' || Array.isArray(spec)) return spec;
  if ('column' in spec && (spec.transforms ?? []).length === 0) return spec.column;
  return undefined;
}

/**
 * A cell a driver handed over with a JSON type (docs/mapping.md, "Values"): a number, a
 * boolean, or a JSON value (a PostgreSQL `json`/`jsonb` or array, a MySQL or MariaDB JSON
 * column), as custom_data — a JSON object on the platform — can hold it; `''` for an empty
 * one (`[]`, `{}`), left out as an empty cell is. `undefined` for what is read as text:
 * text, null, dates and bytes, and a number JSON cannot write (NaN, ±Infinity). CSV cells
 * are always text: no type is guessed from `42` or `true`.
 *
 * The sources hand over plain values (src/sources/sql/plain-value.ts: dates as ISO text,
 * big integers and decimals as text, bytes as text), so what comes here is JSON already,
 * and `JSON.stringify` writes it the same way for the same cell: hashes stay stable.
 */
export function structuredCell(cell: unknown): unknown {
  switch (typeof cell) {
    case 'number':
      return Number.isFinite(cell) ? cell : undefined;
    case 'boolean':
      return cell;
    case 'object':
      if (cell === null || cell instanceof Date || Buffer.isBuffer(cell)) return undefined;
      if (Array.isArray(cell)) return cell.length > 0 ? cell : '';
      return Object.keys(cell).length > 0 ? cell : '';
    default:
      return undefined;
  }
}
