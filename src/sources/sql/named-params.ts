import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';

export type SqlParamValue = string | number | boolean | null;
export type PlaceholderStyle = 'postgres' | 'mysql';

export interface BoundQuery {
  text: string;
  values: SqlParamValue[];
}

/**
 * `:name` → `$1` (PostgreSQL, a name used twice keeps its number) or `?` (MySQL, one value
 * per occurrence). PostgreSQL gets the values apart from the text; mysql2 escapes them into
 * the text on the client (its streaming queries are not server-side prepared). String
 * literals, quoted identifiers, comments, PostgreSQL dollar quotes and `::type` casts are
 * copied untouched, so `':x'` or `now()::date` stay what they are.
 */
export function bindNamedParams(
  query: string,
  params: Readonly<Record<string, SqlParamValue>>,
  style: PlaceholderStyle,
): BoundQuery {
  const values: SqlParamValue[] = [];
  const numbers = new Map<string, number>();
  const missing = new Set<string>();
  let text = '';
  let i = 0;
  while (i < query.length) {
    const skipped = skipQuoted(query, i, style);
    if (skipped > i) {
      text += query.slice(i, skipped);
      i = skipped;
      continue;
    }
    const char = query[i]!;
    if (char === ':' && query[i + 1] === ':') {
      text += '::';
      i += 2;
      continue;
    }
    const name =
      char === ':' && query[i - 1] !== ':'
        ? /^[A-Za-z_][A-Za-z0-9_]*/.exec(query.slice(i + 1))?.[0]
        : undefined;
    if (name === undefined) {
      text += char;
      i += 1;
      continue;
    }
    i += 1 + name.length;
    if (!Object.hasOwn(params, name)) {
      missing.add(name);
      continue;
    }
    if (style === 'mysql') {
      values.push(params[name]!);
      text += '?';
    } else {
      let number = numbers.get(name);
      if (number === undefined) {
        values.push(params[name]!);
        number = values.length;
        numbers.set(name, number);
      }
      text += `$${number}`;
    }
  }
  if (missing.size > 0) {
    const names = [...missing].map((name) => `:${name}`).join(', ');
    throw new ConfigError(
      `the query uses ${names} but params: does not give ${missing.size === 1 ? 'it' : 'them'}: add ${missing.size === 1 ? 'it' : 'them'} under params:`,
      { code: CODE.SOURCE_QUERY_PARAM_MISSING },
    );
  }
  return { text, values };
}

/**
 * End index of the quoted text or comment starting at `i`, or `i` when none starts there.
 * MySQL's `--` starts a comment only before a space (`1--1` is arithmetic); PostgreSQL's
 * `E'…'` strings take backslash escapes and its block comments nest.
 */
export function skipQuoted(query: string, i: number, style: PlaceholderStyle): number {
  const char = query[i]!;
  const next = query[i + 1];
  if (char === '-' && next === '-' && (style === 'postgres' || /^[\s]?$/.test(query[i + 2] ?? '')))
    return endOf(query, '\n', i + 2);
  if (char === '#' && style === 'mysql') return endOf(query, '\n', i + 1);
  if (char === '/' && next === '*')
    return style === 'postgres' ? endOfNestedComment(query, i + 2) : endOf(query, '*/', i + 2);
  if (char === "'") {
    const escapeString =
      style === 'postgres' && /(^|[^A-Za-z0-9_$])[eE]$/.test(query.slice(Math.max(0, i - 2), i));
    return endOfQuoted(query, "'", i + 1, style === 'mysql' || escapeString);
  }
  if (char === '"') return endOfQuoted(query, '"', i + 1, style === 'mysql');
  if (char === '`' && style === 'mysql') return endOfQuoted(query, '`', i + 1, false);
  if (char === '$' && style === 'postgres') {
    const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(query.slice(i))?.[0];
    if (tag !== undefined && !/[A-Za-z0-9_]/.test(query[i - 1] ?? ''))
      return endOf(query, tag, i + tag.length);
  }
  return i;
}

function endOfNestedComment(query: string, from: number): number {
  let depth = 1;
  let i = from;
  while (i < query.length) {
    if (query.startsWith('/*', i)) {
      depth += 1;
      i += 2;
    } else if (query.startsWith('*/', i)) {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
    } else i += 1;
  }
  return query.length;
}

function endOf(query: string, terminator: string, from: number): number {
  const at = query.indexOf(terminator, from);
  return at === -1 ? query.length : at + terminator.length;
}

/** A doubled quote escapes it; in MySQL a backslash does too. */
function endOfQuoted(query: string, quote: string, from: number, backslash: boolean): number {
  let i = from;
  while (i < query.length) {
    const char = query[i]!;
    if (backslash && char === '\\') i += 2;
    else if (char === quote && query[i + 1] === quote) i += 2;
    else if (char === quote) return i + 1;
    else i += 1;
  }
  return query.length;
}

/** `query "attendees"` or `query "SELECT id, email FROM …"`, for origins and messages. */
export function describeQuery(query: string, name?: string): string {
  if (name !== undefined && name.trim() !== '') return `query "${name.trim()}"`;
  const words = query.replace(/\s+/g, ' ').trim();
  return `query "${words.length > 40 ? `${words.slice(0, 40).trimEnd()}…` : words}"`;
}
