import { headerWords, isBuyersColumn } from './buyer-columns.js';
import { CODE } from '../../errors/codes.js';
import type { RawRecord } from '../../sources/source-row.js';
import type { ColumnRef } from '../mapping-file-schema.js';
import { MappingError } from '../mapping-error.js';

/** `First Name`, `first_name`, `FIRST-NAME` and `FirstName` are one column. */
export function normalizeColumnName(name: string): string {
  return name
    .replace(/^\uFEFF/, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
}

export function aliasesOf(ref: ColumnRef): readonly string[] {
  return typeof ref === 'string' ? [ref] : ref;
}

/** Reads one cell as text; what databases hand over (numbers, dates, buffers, arrays) included. */
export function cellText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (Array.isArray(value) && value.every(isScalar)) return listText(value);
  // Objects (json columns) stay JSON, as custom_data wants them; so do arrays holding objects.
  return JSON.stringify(value);
}

/**
 * A list (a PostgreSQL `text[]`) as a list reaching a param is written: items joined with
 * `,` (docs/mapping.md), `NULL` and empty items left out as `split` leaves them out.
 */
function listText(items: readonly unknown[]): string {
  let text = '';
  for (const item of items) {
    const piece = cellText(item);
    if (piece === '') continue;
    text = text === '' ? piece : `${text},${piece}`;
  }
  return text;
}

function isScalar(item: unknown): boolean {
  return item === null || typeof item !== 'object' || item instanceof Date;
}

export type CellReader = (values: RawRecord) => string;

/**
 * Resolves the mapping's column references against one source header, once, so that
 * reading a row is a property access. Remembers what was asked for and what was missing.
 */
export class ColumnBinder {
  /** Header names by their normal form: more than one when they differ only in case or `_ -`. */
  private readonly byNormalName = new Map<string, string[]>();
  private readonly exact: ReadonlySet<string>;
  private readonly used = new Set<string>();
  private readonly missingRefs = new Map<string, readonly string[]>();

  constructor(readonly header: readonly string[]) {
    this.exact = new Set(header);
    for (const name of header) {
      const key = normalizeColumnName(name);
      const names = this.byNormalName.get(key);
      if (names === undefined) this.byNormalName.set(key, [name]);
      else names.push(name);
    }
  }

  /**
   * The source's own name of the first alias it has, or `undefined`. A name written
   * exactly wins; two columns that both match only loosely (`E-mail` and `e_mail`) are a
   * mistake to fix, not a guess to make.
   */
  resolve(ref: ColumnRef): string | undefined {
    for (const alias of aliasesOf(ref)) {
      const candidates = this.exact.has(alias) ? [alias] : this.byNormalName.get(normalizeColumnName(alias));
      if (candidates === undefined) continue;
      if (candidates.length > 1) {
        throw new MappingError(
          `The source has ${candidates.length} columns that all read as "${alias}": ${candidates.map((c) => `"${c}"`).join(', ')}. ` +
            'Rename one in the source, or write the column exactly as the source does in the mapping.',
          { code: CODE.MAPPING_AMBIGUOUS_COLUMN },
        );
      }
      const found = candidates[0]!;
      this.used.add(found);
      return found;
    }
    const aliases = aliasesOf(ref);
    this.missingRefs.set(aliases.join('\u0000'), aliases);
    return undefined;
  }

  /** A reader of the column; a column the source lacks reads as empty. */
  reader(ref: ColumnRef): CellReader {
    const column = this.resolve(ref);
    if (column === undefined) return () => '';
    return (values) => {
      const value = values[column];
      return typeof value === 'string' ? value : cellText(value);
    };
  }

  /** The name messages use for the column: the source's own, or the first alias. */
  label(ref: ColumnRef): string {
    return this.resolve(ref) ?? aliasesOf(ref)[0] ?? '';
  }

  /**
   * Why the column reads as empty on every row when the source lacks it (`missingColumnMessage`),
   * else `undefined`.
   */
  absence(ref: ColumnRef): string | undefined {
    return this.resolve(ref) === undefined ? missingColumnMessage(aliasesOf(ref), this.header) : undefined;
  }

  /**
   * Of the columns asked for so far, those the source lacks, by the name messages give them
   * ({@link label}), each with {@link absence}: a problem of a value from one says so.
   */
  absences(): ReadonlyMap<string, string> {
    const found = new Map<string, string>();
    for (const aliases of this.missingRefs.values())
      found.set(aliases[0] ?? '', missingColumnMessage(aliases, this.header));
    return found;
  }

  missing(): string[][] {
    return [...this.missingRefs.values()].map((aliases) => [...aliases]);
  }

  unused(): string[] {
    return this.header.filter((name) => !this.used.has(name));
  }
}

/** How many of the source's columns a message names before "… (N in all)". */
const NAMED = 15;

/**
 * Why a value the mapping reads from a column is empty on every row: the source's header has
 * no such column (renamed in an export, or removed), said with the columns it does have and
 * the fix (docs/mapping.md, "A column the source lacks"). Before, each row said its value was
 * empty or missing, which sent people to fill cells that were there under another name.
 */
export function missingColumnMessage(aliases: readonly string[], header: readonly string[]): string {
  const wanted = orList(aliases.map((alias) => JSON.stringify(alias)));
  const named = header.slice(0, NAMED).map((name) => JSON.stringify(name));
  const columns =
    header.length === 0
      ? 'it has no columns'
      : `its columns are ${named.join(', ')}${header.length > NAMED ? `, … (${header.length} in all)` : ''}`;
  const like = likeColumn(aliases, header);
  const names = [...aliases, like ?? '…'].map((name) => JSON.stringify(name));
  return (
    // No brackets: a skip's reason puts this in brackets of its own (`loss-tally.ts`, reasonKind).
    `the source's header has no column ${wanted}, so no row has it: ${columns}. ` +
    `Rename ${like === undefined ? 'the column' : JSON.stringify(like)} in the source to ${JSON.stringify(aliases[0] ?? '')}, ` +
    `or add the source's name for it to the mapping: column: [${names.join(', ')}]`
  );
}

/**
 * A column of the header that may be the one asked for under another name: its name holds one
 * of the aliases (`E-mail address` for `email`), else the last word of one (`Attendee E-mail`
 * for `Ticket Email`). Never a buyer's column for a holder's (`Order Email`): renamed, it
 * would give every holder of the order the buyer's value (`buyer-columns.ts`).
 */
function likeColumn(aliases: readonly string[], header: readonly string[]): string | undefined {
  const fair = header.filter((name) => aliases.some(isBuyersColumn) || !isBuyersColumn(name));
  const wholes = aliases.map(normalizeColumnName).filter((alias) => alias.length >= 3);
  // A last word that ends the names of many columns (`First Name`, `Company Name`) tells none
  // of them: renaming `first_name` to `last_name` would lose every first name.
  const lasts = aliases
    .map((alias) => normalizeColumnName(headerWords(alias).at(-1) ?? ''))
    .filter((word) => word.length >= 3 && !COMMON_LAST_WORDS.has(word));
  const holding = (parts: readonly string[]): string | undefined =>
    fair.find((name) => parts.some((part) => normalizeColumnName(name).includes(part)));
  return holding(wholes) ?? holding(lasts);
}

/** Last words of column names that many columns share, normalised (`normalizeColumnName`). */
const COMMON_LAST_WORDS = new Set(['name', 'number', 'code', 'date', 'type', 'status']);

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
