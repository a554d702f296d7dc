import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { skipQuoted, type PlaceholderStyle } from './named-params.js';

/**
 * Refuses, before connecting, a source query that is not one read: evsync never writes to a
 * source (docs/sources.md). This check is for a clear message; what enforces it is the
 * database: one statement per query and a READ ONLY transaction, which also stops a function
 * with side effects or a data-changing WITH part this check cannot see.
 */
export function assertReadOnlyQuery(query: string, style: PlaceholderStyle, label: string): void {
  const problem = readOnlyProblem(query, style);
  if (problem === undefined) return;
  throw new ConfigError(
    `the source ${label} ${problem}: only a SELECT or WITH … SELECT is allowed (evsync never writes to a source): ` +
      'fix the query in the job file',
    { code: CODE.SOURCE_QUERY_NOT_READ_ONLY },
  );
}

interface Token {
  /** A lower-cased word, or one of `( ) ; ,`. */
  text: string;
  depth: number;
}

/** Why `query` is not a single read, or undefined when it looks like one. */
export function readOnlyProblem(query: string, style: PlaceholderStyle): string | undefined {
  const found = tokens(query, style);
  if (found === 'executable-comment') return 'has an executable comment (/*! … */), whose text MySQL runs';
  // Trailing semicolons end the one statement; any other one starts a second statement.
  let end = found.length;
  while (end > 0 && found[end - 1]!.text === ';') end -= 1;
  const list = found.slice(0, end);
  if (list.some((token) => token.text === ';')) return 'has more than one statement';
  const words = list.filter((token) => token.text !== '(');
  const first = words[0];
  if (first === undefined) return 'is empty';
  if (first.text !== 'select' && first.text !== 'with') {
    return `starts with ${first.text.toUpperCase()}`;
  }
  if (first.text === 'with') {
    // The statement after the WITH parts is the first of these at the top level.
    const main = list.find(
      (token) => token.depth === 0 && /^(select|insert|update|delete|merge|replace)$/.test(token.text),
    );
    if (main !== undefined && main.text !== 'select') return `is a WITH … ${main.text.toUpperCase()}`;
  }
  for (let i = 0; i < list.length; i++) {
    const word = list[i]!.text;
    const next = list[i + 1]?.text;
    const after = list[i + 2]?.text;
    // `(DELETE FROM …)` in a WITH part or a subquery; `insert(` and `replace(` are MySQL
    // string functions, so a word must follow.
    if (list[i - 1]?.text === '(' && /^(insert|update|delete|merge)$/.test(word) && next !== '(') {
      return `has a part that changes data (${word.toUpperCase()})`;
    }
    if (word === 'into') return 'writes its result somewhere (SELECT … INTO)';
    if (word === 'for' && (next === 'update' || next === 'share' || (next === 'no' && after === 'key'))) {
      return `locks the rows it reads (FOR ${next.toUpperCase()})`;
    }
    if (word === 'for' && next === 'key' && after === 'share')
      return 'locks the rows it reads (FOR KEY SHARE)';
    if (word === 'lock' && next === 'in') return 'locks the rows it reads (LOCK IN SHARE MODE)';
  }
  return undefined;
}

/** Words and punctuation outside strings, quoted names and comments, with their paren depth. */
function tokens(query: string, style: PlaceholderStyle): Token[] | 'executable-comment' {
  const out: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < query.length) {
    if (style === 'mysql' && /^\/\*M?!/.test(query.slice(i, i + 4))) return 'executable-comment';
    const skipped = skipQuoted(query, i, style);
    if (skipped > i) {
      // A quoted name or string is a word (`"delete"` after `(` is not DELETE); a comment is nothing.
      if (!'-#/'.includes(query[i]!)) out.push({ text: '?', depth });
      i = skipped;
      continue;
    }
    const char = query[i]!;
    const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(query.slice(i, i + 64))?.[0];
    if (word !== undefined) {
      // Longer words are read whole: only their start matters for a keyword.
      let endOfWord = i + word.length;
      while (endOfWord < query.length && /[A-Za-z0-9_$]/.test(query[endOfWord]!)) endOfWord += 1;
      out.push({ text: word.toLowerCase(), depth });
      i = endOfWord;
      continue;
    }
    if (char === '(') {
      out.push({ text: '(', depth });
      depth += 1;
    } else if (char === ')') {
      depth = Math.max(0, depth - 1);
      out.push({ text: ')', depth });
    } else if (char === ';' || char === ',') {
      out.push({ text: char, depth });
    }
    i += 1;
  }
  return out;
}
