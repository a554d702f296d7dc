/**
 * A users CSV with every generic column of issue 4, for benchmarks: deterministic, written
 * with backpressure (memory stays flat for any row count). One row in five has a quoted,
 * multi-line bio with quotes and commas; one in ten a JSON custom_data; one in three an address.
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

/** Row `i` (1-based) as a CSV line with its line break. */
export function usersCsvLine(i: number): string {
  const first = FIRST[i % FIRST.length]!;
  const last = LAST[(i * 7) % LAST.length]!;
  const [city, state, zip, country] = i % 3 === 0 ? CITIES[i % CITIES.length]! : ['', '', '', ''];
  const company = i % 4 === 0 ? 'Example Corp' : '';
  const position = company === '' ? '' : 'Engineer';
  const bio = i % 5 === 0 ? '"Speaks about, well, ""systems"".\n\nTwo paragraphs."' : '';
  const custom = i % 10 === 0 ? `"{""badge"":""${i}""}"` : '';
  const email = `${first.toLowerCase()}.${last.toLowerCase()}.${i}@example.org`;
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

export async function generateUsersCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  const write = (text: string): Promise<void> =>
    out.write(text) ? Promise.resolve() : new Promise((resolve) => out.once('drain', () => resolve()));
  await write(`${USERS_CSV_COLUMNS.join(',')}\n`);
  let batch = '';
  for (let i = 1; i <= rows; i++) {
    batch += usersCsvLine(i);
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
