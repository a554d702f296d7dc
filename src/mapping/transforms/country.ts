import { createRequire } from 'node:module';
import { COUNTRY_CODES } from '../../platform/write-params/country-codes.js';
import { boundedMemo } from '../../model/bounded-memo.js';

/**
 * Countries as registration forms write them → ISO 3166-1 alpha-2 codes: codes (`de`,
 * `DEU`), English short names in both styles (`Korea, Republic of` and `South Korea`),
 * common variants (`Viet Nam`, `Ivory Coast`, `USA`) and the names of the languages that
 * registration tools export in (`Deutschland`, `Allemagne`, `Alemania`).
 *
 * The names come from `i18n-iso-countries` (maintained, MIT, names per language from
 * CLDR and ISO 3166): a hand-kept table goes stale and misses the languages. What it lacks
 * is the short list below, checked by the tests against ISO 3166-1's English short names.
 */

/** The languages read, in the order a name found in two of them is decided. */
const LOCALES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'sv', 'da', 'nb', 'fi', 'cs'] as const;

/**
 * ISO 3166-1 short names and everyday names that the package's English list lacks, and the
 * constituent countries people write for the United Kingdom.
 */
const EXTRA_NAMES: Record<string, string> = {
  "Korea, Democratic People's Republic of": 'KP',
  "Democratic People's Republic of Korea": 'KP',
  DPRK: 'KP',
  Macedonia: 'MK',
  'Czech Republic': 'CZ',
  Swaziland: 'SZ',
  Burma: 'MM',
  'Cape Verde': 'CV',
  'East Timor': 'TL',
  Vatican: 'VA',
  'Vatican City': 'VA',
  'Holy See': 'VA',
  Laos: 'LA',
  Syria: 'SY',
  Moldova: 'MD',
  Micronesia: 'FM',
  Brunei: 'BN',
  England: 'GB',
  Scotland: 'GB',
  Wales: 'GB',
  'Northern Ireland': 'GB',
  Holland: 'NL',
  America: 'US',
};

/** Codes people use that ISO 3166-1 assigns otherwise or not at all. */
const CODE_ALIASES: Record<string, string> = { UK: 'GB', EL: 'GR' };

type Names = Record<string, string | string[]>;

let index: Map<string, string | null> | undefined;
let alpha3: Map<string, string> | undefined;

/**
 * The code of a country, or `undefined` when the text names none (or names two: `Congo`).
 * Lower-case two-letter codes are accepted: `de` is Germany in any export.
 */
export function countryCode(text: string): string | undefined {
  return placed(text);
}

/**
 * {@link countryCode}'s answers by the text as written: an export names a few dozen
 * countries over thousands of rows, and each is placed once.
 */
const placed = boundedMemo(place, 10_000);

function place(text: string): string | undefined {
  const value = text.trim();
  if (value === '') return undefined;
  if (/^[a-z]{2}$/i.test(value)) {
    const upper = value.toUpperCase();
    const code = CODE_ALIASES[upper] ?? upper;
    return COUNTRY_CODES.has(code) ? code : lookup(value);
  }
  if (/^[a-z]{3}$/i.test(value)) {
    const code = alpha3Index().get(value.toUpperCase());
    if (code !== undefined) return code;
  }
  const found = lookup(value);
  if (found !== undefined) return found;
  // ISO's inverted short names: "Iran, Islamic Republic of" is "Islamic Republic of Iran".
  const comma = /^([^,]+),\s*(?:the\s+)?(.+)$/i.exec(value);
  if (comma !== null) return lookup(`${comma[2]} ${comma[1]}`) ?? lookup(comma[1]!);
  return undefined;
}

function lookup(name: string): string | undefined {
  const found = nameIndex().get(nameKey(name));
  return found ?? undefined;
}

/**
 * Names compare without case, accents, punctuation, spaces or a leading "the":
 * `Côte d'Ivoire` = `Cote d Ivoire`, `Viet Nam` = `Vietnam`, `The Netherlands` = `Netherlands`.
 */
export function nameKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/^the\s+/, '')
    .replace(/[^\p{L}\p{N}]/gu, '');
}

function nameIndex(): Map<string, string | null> {
  if (index !== undefined) return index;
  const require = createRequire(import.meta.url);
  const built = new Map<string, string | null>();
  // `null`: a name two countries share (`Congo`), which places neither.
  const add = (name: string, code: string, localeRank: number, ranks: Map<string, number>): void => {
    const key = nameKey(name);
    if (key === '') return;
    const had = built.get(key);
    if (had === undefined) {
      built.set(key, code);
      ranks.set(key, localeRank);
    } else if (had !== code && ranks.get(key) === localeRank) {
      built.set(key, null);
    }
  };
  const ranks = new Map<string, number>();
  for (const [name, code] of Object.entries(EXTRA_NAMES)) add(name, code, -1, ranks);
  LOCALES.forEach((locale, rank) => {
    const { countries } = require(`i18n-iso-countries/langs/${locale}.json`) as { countries: Names };
    for (const [code, names] of Object.entries(countries)) {
      if (!COUNTRY_CODES.has(code)) continue;
      for (const name of typeof names === 'string' ? [names] : names) add(name, code, rank, ranks);
    }
  });
  index = built;
  return index;
}

function alpha3Index(): Map<string, string> {
  if (alpha3 !== undefined) return alpha3;
  const require = createRequire(import.meta.url);
  const codes = require('i18n-iso-countries/codes.json') as string[][];
  alpha3 = new Map(codes.filter(([two]) => COUNTRY_CODES.has(two!)).map(([two, three]) => [three!, two!]));
  return alpha3;
}
