/**
 * Issue #38's benchmark: CSV → validated intents with the shipped `eventbrite` mapping on a
 * generated Eventbrite US "Attendee Summary" (the real header; 200,000 rows by default), for one
 * or more builds in one sitting, so that a change is measured against the build before it.
 * Target: within 10 % of the baseline's CPU time (CPU time, because wall time on a shared
 * machine measures the neighbours too).
 *
 *   npx tsx test/bench/registration-mapping.ts [rows=200000] [builds=after=./dist] [repeat=3]
 *   e.g. builds=before=/tmp/before/dist,after=./dist (each a `dist/` built by `npm run build`
 *   of a checkout whose `mappings/` sits beside it)
 *
 * Each measurement runs in its own child process, alternating the builds, and the median of
 * `repeat` runs is printed.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Eventbrite's US attendee report header, as Eventbrite writes it (custom questions after). */
const HEADER = [
  'Order #',
  'Order Date',
  'Prefix',
  'First Name',
  'Last Name',
  'Email',
  'Quantity',
  'Price Tier',
  'Ticket Type',
  'Attendee #',
  'Group',
  'Order Type',
  'Currency',
  'Total Paid',
  'Fees Paid',
  'Eventbrite Fees',
  'Eventbrite Payment Processing',
  'Attendee Status',
  'Home Address 1',
  'Home Address 2',
  'Home City',
  'Home State',
  'Home Zip',
  'Home Country',
  'Cell Phone',
  'Job Title',
  'Company',
  'Website',
  'What is your T-shirt size?',
];

const FIRST = ['Ada', 'Grace', 'Alan', 'Zoé', 'Siân', 'Łukasz', 'Nguyễn', 'José', 'Linus', 'Ayşe'];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Müller',
  'Llewellyn',
  'Brzęczyszczykiewicz',
  'Văn An',
  'García',
  'Torvalds',
  'Yılmaz',
];
const TICKETS = ['General Admission', 'Speaker', 'Early Bird', 'Exhibitor', 'Student'];
const STATUS = [
  'Attending',
  'Attending',
  'Attending',
  'Attending',
  'Attending',
  'Attending',
  'Attending',
  'Attending',
  'Cancelled',
  'Refunded',
];

/** Bumped whenever the generated rows change, so that an older file is never reused. */
const VERSION = 1;

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

async function generate(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  const write = (line: string): Promise<void> | void =>
    out.write(line) ? undefined : new Promise<void>((done) => out.once('drain', () => done()));
  await write(HEADER.map(csvCell).join(',') + '\r\n');
  let order = 100_000_000;
  for (let i = 1; i <= rows; i++) {
    // One order in four holds two tickets bought under the buyer's e-mail.
    if (i % 4 !== 2) order++;
    const first = FIRST[i % FIRST.length]!;
    const last = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
    const email = i % 4 === 2 ? `buyer${order}@example.org` : `attendee${i}@example.org`;
    const address = i % 3 === 0;
    const cells = [
      String(order),
      '2026-05-01 10:22:00',
      i % 7 === 0 ? 'Dr' : '',
      first,
      last,
      email,
      '1',
      '',
      TICKETS[i % TICKETS.length]!,
      String(900_000_000 + i),
      '',
      'Eventbrite Completed',
      'EUR',
      '120.00',
      '4.20',
      '3.10',
      '1.90',
      STATUS[i % STATUS.length]!,
      address ? `${i} Rue de la Paix` : '',
      '',
      address ? 'Paris' : '',
      '',
      address ? '75002' : '',
      address ? (i % 2 === 0 ? 'France' : 'FR') : '',
      i % 5 === 0 ? '+33 1 23 45 67 89' : '',
      'Engineer',
      i % 11 === 0 ? 'Müller, Söhne & Co' : 'Example Ltd',
      i % 13 === 0 ? 'https://example.org' : '',
      ['S', 'M', 'L', 'XL'][i % 4]!,
    ];
    const pending = write(cells.map(csvCell).join(',') + '\r\n');
    if (pending) await pending;
  }
  await new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done())));
}

interface Figures {
  rows: number;
  intents: number;
  invalid: number;
  skipped: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
}

/** Child mode: map the file with the given build's modules and shipped mapping. */
async function measure(dist: string, file: string): Promise<void> {
  const load = async <T>(path: string): Promise<T> =>
    (await import(pathToFileURL(join(dist, path)).href)) as T;
  const { loadMapping } = await load<{ loadMapping: (name: string) => Promise<unknown> }>(
    'mapping/load-mapping.js',
  );
  const { mapSource } = await load<{
    mapSource: (source: unknown, mapping: unknown) => AsyncIterable<{ type: string; intents?: unknown[] }>;
  }>('mapping/map-source.js');
  const { createCsvSource } = await load<{ createCsvSource: (o: { path: string }) => unknown }>(
    'sources/csv/csv-source.js',
  );
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const mapping = await loadMapping('eventbrite');
  const figures = { rows: 0, intents: 0, invalid: 0, skipped: 0 };
  for await (const item of mapSource(createCsvSource({ path: file }), mapping)) {
    figures.rows++;
    if (item.type === 'intents') figures.intents += item.intents?.length ?? 0;
    else if (item.type === 'invalid') figures.invalid++;
    else if (item.type === 'skipped') figures.skipped++;
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(
    JSON.stringify({
      ...figures,
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    }),
  );
}

function runChild(dist: string, file: string): Figures {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', dist, file],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (child.status !== 0) throw new Error(`${dist} failed:\n${child.stderr}`);
  return JSON.parse(child.stdout) as Figures;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  if (process.argv[2] === '--child') return measure(process.argv[3]!, process.argv[4]!);
  const args = Object.fromEntries(
    process.argv.slice(2).map((arg) => {
      const at = arg.indexOf('=');
      return at < 0 ? ['rows', arg] : [arg.slice(0, at), arg.slice(at + 1)];
    }),
  ) as Record<string, string>;
  const rows = Number(args.rows ?? 200_000);
  const repeat = Number(args.repeat ?? 3);
  const builds = (args.builds ?? 'after=./dist').split(',').map((pair) => {
    const [label, dist] = pair.split('=') as [string, string];
    return { label, dist: resolve(dist) };
  });
  const file = join(tmpdir(), `evsync-bench-eventbrite-v${VERSION}-${rows}.csv`);
  if (!existsSync(file)) await generate(file, rows);
  console.log(
    `input: ${file} (${rows.toLocaleString('en')} rows, ${(statSync(file).size / 1e6).toFixed(1)} MB, Eventbrite US header)`,
  );
  const runs = new Map<string, Figures[]>(builds.map((b) => [b.label, []]));
  for (let round = 0; round < repeat; round++)
    for (const build of builds) runs.get(build.label)!.push(runChild(build.dist, file));
  const results = builds.map(({ label }) => {
    const all = runs.get(label)!;
    const last = all.at(-1)!;
    return {
      label,
      rows: last.rows,
      intents: last.intents,
      invalid: last.invalid,
      skipped: last.skipped,
      seconds: median(all.map((r) => r.seconds)),
      cpuSeconds: median(all.map((r) => r.cpuSeconds)),
      peakRssMb: median(all.map((r) => r.peakRssMb)),
    };
  });
  for (const r of results)
    console.log(
      `${r.label.padEnd(10)}${r.seconds.toFixed(2)} s wall, ${r.cpuSeconds.toFixed(2)} s CPU ` +
        `(${Math.round(r.rows / r.cpuSeconds).toLocaleString('en')} rows per CPU-second), peak RSS ${r.peakRssMb.toFixed(0)} MB; ` +
        `${r.intents.toLocaleString('en')} intents, ${r.skipped.toLocaleString('en')} skipped, ${r.invalid.toLocaleString('en')} invalid (median of ${repeat})`,
    );
  const base = results[0]!;
  for (const r of results.slice(1))
    console.log(
      `${r.label} vs ${base.label}: ${(r.cpuSeconds / base.cpuSeconds).toFixed(2)}× CPU, ${(r.seconds / base.seconds).toFixed(2)}× wall (target ≤ 1.10× CPU)`,
    );
}

await main();
