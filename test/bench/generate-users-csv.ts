/**
 * A users CSV with every generic column of the `users` mapping, for benchmarks: deterministic, written
 * with backpressure (memory stays flat for any row count). One row in five has a quoted,
 * multi-line bio with quotes and commas; one in ten a JSON custom_data; one in three an address.
 * Names keep their accents (`Zoé Müller`) but e-mail addresses are ASCII, as real ones are.
 * One row in a hundred is deliberately invalid (see {@link INVALID_ROW_SHARE}).
 */
import { createWriteStream } from 'node:fs';

export const USERS_CSV_COLUMNS = [
  'client_id',
  'email',
  'first_name',
  'last_name',
  'salutation',
  'membership',
  'company',
  'position',
  'bio',
  'tags',
  'photo_url',
  'phone_work',
  'phone_cell',
  'phone_fax',
  'website',
  'blog',
  'linkedin',
  'twitter',
  'street',
  'street2',
  'city',
  'state',
  'postal_code',
  'country_code',
  'custom_data',
] as const;

/**
 * Bumped whenever the generated rows change, so that benches do not reuse a file an older
 * generator wrote to their temporary directory: put it in the file name.
 */
export const USERS_CSV_VERSION = 3;

/**
 * Real exports carry a few bad rows, and the error path (full diagnostics, messages) must
 * stay measured, but it must not dominate: one row in a hundred is invalid, half of them
 * with an e-mail whose `@` was typed as ` at `, half without a last name.
 */
export const INVALID_ROW_SHARE = 0.01;

/** Whether row `i` (1-based) is one of the deliberately invalid rows. */
export function isInvalidUsersRow(i: number): boolean {
  return i % 100 === 50;
}

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Katherine',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
  'Zoé',
  'Frances',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Johnson',
  'Torvalds',
  'Hamilton',
  'Ritchie',
  'Liskov',
  'Müller',
  'Allen',
];
const CITIES = [
  ['Berlin', '', '10115', 'DE'],
  ['Austin', 'TX', '78701', 'US'],
  ['London', '', 'SW1A 1AA', 'GB'],
  ['Toronto', 'ON', 'M5H 2N2', 'CA'],
] as const;

/** `Zoé` → `zoe`, `Müller` → `mueller`: how people write their names in e-mail addresses. */
function asciiLocalPart(name: string): string {
  return name
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/[^a-z0-9.-]/g, '');
}

/**
 * Whether row `i` is one of the `changedPercent` % a "nightly" copy of the file renames
 * (never an invalid row: a changed row must be sent).
 */
export function isChangedUsersRow(i: number, changedPercent: number): boolean {
  return changedPercent > 0 && i % Math.round(100 / changedPercent) === 7 % Math.round(100 / changedPercent);
}

/** Row `i` (1-based) as a CSV line with its line break; a changed row has another last name, its e-mail unchanged. */
export function usersCsvLine(i: number, changed = false): string {
  const first = FIRST[i % FIRST.length]!;
  const invalid = isInvalidUsersRow(i);
  const last = invalid && i % 200 === 150 ? '' : changed ? `Changed${i}` : LAST[(i * 7) % LAST.length]!;
  const [city, state, zip, country] = i % 3 === 0 ? CITIES[i % CITIES.length]! : ['', '', '', ''];
  const company = i % 4 === 0 ? 'Example Corp' : '';
  const position = company === '' ? '' : 'Engineer';
  const bio = i % 5 === 0 ? '"Speaks about, well, ""systems"".\n\nTwo paragraphs."' : '';
  const custom = i % 10 === 0 ? `"{""badge"":""${i}""}"` : '';
  const at = invalid && i % 200 === 50 ? ' at ' : '@';
  // A renamed person keeps the e-mail: a name and an e-mail changed together are another
  // person under the key, which a run refuses (docs/sync-engine.md, "Who is who").
  const named = changed ? LAST[(i * 7) % LAST.length]! : last;
  const email = `${asciiLocalPart(first)}.${asciiLocalPart(named || 'x')}.${i}${at}example.org`;
  const fields = [
    `u-${i}`,
    email,
    first,
    last,
    i % 2 === 0 ? 'Dr.' : '',
    'member',
    company,
    position,
    bio,
    '"a, b"',
    '',
    `+49 30 ${i}`,
    '',
    '',
    `https://example.org/${i}`,
    '',
    '',
    '',
    city === '' ? '' : `Street ${i}`,
    '',
    city,
    state,
    zip,
    country,
    custom,
  ];
  return `${fields.join(',')}\n`;
}

export async function generateUsersCsv(
  file: string,
  rows: number,
  /** Rows `from`..`rows` only, their client_ids `<prefix>-<i>`: a second source of the same people. */
  part: { from: number; prefix: string } = { from: 1, prefix: 'u' },
  /** The share of rows renamed (`isChangedUsersRow`): the same people a night later. */
  changedPercent = 0,
): Promise<void> {
  const out = createWriteStream(file);
  const write = (text: string): Promise<void> =>
    out.write(text) ? Promise.resolve() : new Promise((resolve) => out.once('drain', () => resolve()));
  await write(`${USERS_CSV_COLUMNS.join(',')}\n`);
  let batch = '';
  for (let i = part.from; i <= rows; i++) {
    const line = usersCsvLine(i, isChangedUsersRow(i, changedPercent));
    batch += part.prefix === 'u' ? line : `${part.prefix}${line.slice(1)}`;
    if (i % 1000 === 0) {
      await write(batch);
      batch = '';
    }
  }
  await write(batch);
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}
