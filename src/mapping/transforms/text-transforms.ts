import { countryCode } from './country.js';

/** Spaces of every kind (tabs, no-break spaces, line breaks) become one space. */
export function collapseSpaces(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Undoes what spreadsheets add to keep a cell as text: the `="00123"` formula wrapper and
 * the leading `'` guard (`'+49 30 1234`, `'=SUM`), one layer each.
 */
export function stripExcelGuards(text: string): string {
  const first = text.charCodeAt(0);
  // Most cells start with neither `=` nor `'`: no regular expression for them.
  if (first !== 0x3d && first !== 0x27) return text;
  const formula = /^="((?:[^"]|"")*)"$/.exec(text);
  if (formula) return (formula[1] ?? '').replace(/""/g, '"');
  return text.startsWith("'") ? text.slice(1) : text;
}

/**
 * Keeps what a phone number is made of: digits, a leading `+`, and an `x` extension
 * (`x12`, `ext. 12`, `extension 12`). The trunk `(0)` people write after a country code
 * (`+49 (0) 30 …`) is not dialled from abroad, so it goes. Undefined when the text is no
 * phone number: a letter left (`+1-800-FLOWERS`, `call me`), or no digit at all; dropping
 * the letters would send a shorter, wrong number.
 */
export function phoneDigits(text: string): string | undefined {
  const trimmed = text.trim();
  const [main = '', extension] = trimmed.split(/\s*(?:extension|ext\.?|x)\s*(?=\d+$)/i);
  if (/\p{L}/u.test(main)) return undefined;
  const international = /^[\s(]*(?:\+|00)/.test(main);
  const national = international ? main.replace(/\(\s*0\s*\)/, '') : main;
  const digits = national.replace(/\D/g, '');
  if (digits === '') return undefined;
  const plus = /^[\s(]*\+/.test(main) ? '+' : '';
  return extension === undefined ? `${plus}${digits}` : `${plus}${digits}x${extension}`;
}

// Surname particles that stay with the last name: "Ludwig van Beethoven" → "van Beethoven".
const PARTICLES = new Set([
  'van',
  'von',
  'de',
  'da',
  'di',
  'del',
  'della',
  'der',
  'den',
  'du',
  'la',
  'le',
  'ten',
  'ter',
  'zu',
  'dos',
  'das',
  'bin',
  'al',
]);

/** What follows a surname (`Jr.`, `III`, `PhD`): it stays with the last name, and is no first name after a comma. */
const SUFFIXES = new Set(['jr', 'sr', 'ii', 'iii', 'iv', 'phd', 'md', 'esq', 'mba', 'msc', 'bsc', 'dds']);

function isSuffix(word: string): boolean {
  return SUFFIXES.has(word.toLowerCase().replace(/[.,]/g, ''));
}

/**
 * Splits a full name as people write it: `Ada Lovelace`, `Lovelace, Ada`,
 * `Ludwig van Beethoven`, `Martin Luther King, Jr.`, `Dr. Jane Smith PhD` (a title before
 * stays with the first name, a suffix after with the last). A single word is a first name
 * with an empty last name.
 */
export function splitFullName(fullName: string): { first: string; last: string } {
  const name = collapseSpaces(fullName);
  const comma = name.indexOf(',');
  const afterComma = name.slice(comma + 1).trim();
  if (comma > 0 && !afterComma.split(' ').every(isSuffix))
    return { first: afterComma, last: name.slice(0, comma).trim() };
  const words = name
    .replaceAll(',', ' ')
    .split(' ')
    .filter((word) => word !== '');
  let end = words.length;
  while (end > 2 && isSuffix(words[end - 1]!)) end--;
  if (end <= 1) return { first: words[0] ?? '', last: words.slice(1).join(' ') };
  let lastStart = end - 1;
  while (lastStart > 1 && PARTICLES.has((words[lastStart - 1] ?? '').toLowerCase())) lastStart--;
  return { first: words.slice(0, lastStart).join(' '), last: words.slice(lastStart).join(' ') };
}

/**
 * A country as exports write it (`de`, `Germany`, `Deutschland`, `USA`, `Viet Nam`) → its
 * ISO 3166 code. Anything unrecognised is returned as written, so that validation reports
 * it with the value the person typed (the `country` transform reports it itself).
 */
export function toCountryCode(text: string): string {
  return countryCode(text) ?? text.trim();
}
