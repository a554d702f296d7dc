/**
 * CSV → validated user intents with the generic `users` mapping (issue 4, "Figures"):
 * ≥ 100,000 rows/s on 1,000,000 rows, at most 3× the time of papaparse alone on the same
 * file, peak RSS ≤ 200 MB on that file and on one ten times smaller.
 *
 *   npx tsx test/bench/csv-to-intents.ts [rows=1000000]
 *
 * Each measurement runs in its own child process, so that peak RSS is that of one run.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Papa from 'papaparse';
import { loadMapping } from '../../src/mapping/load-mapping.js';
import { mapSource } from '../../src/mapping/map-source.js';
import { createCsvSource } from '../../src/sources/csv/csv-source.js';

const HEADER =
  'client_id,email,first_name,last_name,salutation,membership,company,position,bio,tags,photo_url,phone_work,phone_cell,phone_fax,website,blog,linkedin,twitter,street,street2,city,state,postal_code,country_code,custom_data';
const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Katherine',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
  'Ken',
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
  'Thompson',
  'Allen',
];
const CITIES = [
  ['Berlin', '', '10115', 'DE'],
  ['Austin', 'TX', '78701', 'US'],
  ['London', '', 'SW1A 1AA', 'GB'],
  ['Toronto', 'ON', 'M5H 2N2', 'CA'],
] as const;

/** Writes a users CSV with every generic column; about one row in three has an address. */
async function generateUsersCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  const write = (text: string): Promise<void> =>
    out.write(text) ? Promise.resolve() : new Promise((resolve) => out.once('drain', () => resolve()));
  await write(`${HEADER}\n`);
  let batch = '';
  for (let i = 1; i <= rows; i++) {
    const first = FIRST[i % FIRST.length]!;
    const last = LAST[(i * 7) % LAST.length]!;
    const [city, state, zip, country] = i % 3 === 0 ? CITIES[i % CITIES.length]! : ['', '', '', ''];
    const company = i % 4 === 0 ? 'Example Corp' : '';
    const position = company ? 'Engineer' : '';
    const bio = i % 5 === 0 ? '"Speaks about, well, ""systems"".\n\nTwo paragraphs."' : '';
    const custom = i % 10 === 0 ? `"{""badge"":""${i}""}"` : '';
    batch += `u-${i},${first.toLowerCase()}.${last.toLowerCase()}.${i}@example.org,${first},${last},,member,${company},${position},${bio},"a, b",,+49 30 ${i},,,https://example.org/${i},,,,${city ? `Street ${i}` : ''},,${city},${state},${zip},${country},${custom}\n`;
    if (i % 1000 === 0) {
      await write(batch);
      batch = '';
    }
  }
  await write(batch);
  await new Promise<void>((resolve) => out.end(resolve));
}

async function papaparseOnly(file: string): Promise<number> {
  let rows = 0;
  await new Promise<void>((resolve, reject) => {
    Papa.parse(createReadStream(file, 'utf8'), {
      header: true,
      skipEmptyLines: true,
      step: () => {
        rows++;
      },
      complete: () => resolve(),
      error: reject,
    });
  });
  return rows;
}

async function csvToIntents(file: string): Promise<number> {
  const mapping = await loadMapping('users');
  let intents = 0;
  let invalid = 0;
  for await (const item of mapSource(createCsvSource({ path: file }), mapping)) {
    if (item.type === 'intents') intents += item.intents.length;
    else if (item.type === 'invalid') invalid++;
  }
  if (invalid > 0) throw new Error(`${invalid} rows were invalid: the generated file should be clean`);
  return intents;
}

/** The CSV source alone, to tell its share from the mapping's. */
async function sourceOnly(file: string): Promise<number> {
  let rows = 0;
  for await (const item of createCsvSource({ path: file }).rows()) if (item.ok) rows++;
  return rows;
}

/** Child mode: one measurement, printed as JSON. */
async function measure(mode: string, file: string): Promise<void> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const run = { papaparse: papaparseOnly, source: sourceOnly, intents: csvToIntents }[mode];
  if (run === undefined) throw new Error(`unknown mode ${mode}`);
  const rows = await run(file);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ rows, seconds, cpuSeconds, peakRssMb }));
}

interface Figures {
  rows: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
}

function runChild(mode: string, file: string): Figures {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', mode, file],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  );
  if (child.status !== 0) throw new Error(`${mode} failed:\n${child.stderr}`);
  return JSON.parse(child.stdout) as Figures;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') return measure(process.argv[3]!, process.argv[4]!);
  const rows = Number(process.argv[2] ?? 1_000_000);
  const big = join(tmpdir(), `evsync-bench-users-${rows}.csv`);
  const small = join(tmpdir(), `evsync-bench-users-${rows / 10}.csv`);
  for (const [file, count] of [
    [big, rows],
    [small, rows / 10],
  ] as const) {
    if (!existsSync(file)) await generateUsersCsv(file, count);
  }
  console.log(
    `input: ${big} (${rows.toLocaleString('en')} rows, ${(statSync(big).size / 1e6).toFixed(1)} MB)`,
  );
  const papa = runChild('papaparse', big);
  const source = runChild('source', big);
  const ours = runChild('intents', big);
  const ten = runChild('intents', small);
  const line = (label: string, r: Figures): string =>
    `${label.padEnd(24)}${r.seconds.toFixed(2)} s wall (${Math.round(r.rows / r.seconds).toLocaleString('en')} rows/s), ` +
    `${r.cpuSeconds.toFixed(2)} s CPU (${Math.round(r.rows / r.cpuSeconds).toLocaleString('en')} rows/s), peak RSS ${r.peakRssMb.toFixed(0)} MB`;
  console.log(line('papaparse alone:', papa));
  console.log(line('CSV source alone:', source));
  console.log(line('CSV → user intents:', ours));
  console.log(line(`same, ${(rows / 10).toLocaleString('en')} rows:`, ten));
  console.log('targets: ≥ 100,000 rows/s, ≤ 3× papaparse, peak RSS ≤ 200 MB on both files');
  console.log(
    `ratio to papaparse: ${(ours.seconds / papa.seconds).toFixed(2)}× wall, ${(ours.cpuSeconds / papa.cpuSeconds).toFixed(2)}× CPU ` +
      '(CPU time is the fairer figure on a shared machine)',
  );
  if (ours.rows !== rows || ten.rows !== rows / 10)
    throw new Error('row counts do not match the generated files');
}

await main();
