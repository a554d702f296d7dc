/**
 * CSV → validated user intents with the generic `users` mapping (docs/design.md, "Performance targets"):
 * ≥ 100,000 rows/s on 1,000,000 rows, at most 3× the time of papaparse alone on the same
 * file, peak RSS ≤ 200 MB on that file and on one ten times smaller.
 *
 *   npx tsx test/bench/csv-to-intents.ts [rows=1000000]
 *
 * Each measurement runs in its own child process, so that peak RSS is that of one run.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Papa from 'papaparse';
import { loadMapping } from '../../src/mapping/load-mapping.js';
import { mapSource } from '../../src/mapping/map-source.js';
import { createCsvSource } from '../../src/sources/csv/csv-source.js';
import { generateUsersCsv, INVALID_ROW_SHARE, USERS_CSV_VERSION } from './generate-users-csv.js';

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

let invalidRows = 0;

async function csvToIntents(file: string): Promise<number> {
  const mapping = await loadMapping('users');
  let intents = 0;
  let invalid = 0;
  for await (const item of mapSource(createCsvSource({ path: file }), mapping)) {
    if (item.type === 'intents') intents += item.intents.length;
    else if (item.type === 'invalid') invalid++;
  }
  // The generator writes a small share of deliberately bad rows, so that the error path is
  // measured too; they are counted, and checked against that share.
  invalidRows = invalid;
  return intents + invalid;
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
  process.stdout.write(JSON.stringify({ rows, seconds, cpuSeconds, peakRssMb, invalidRows }));
}

interface Figures {
  rows: number;
  invalidRows: number;
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
  const big = join(tmpdir(), `evsync-bench-intents-users-v${USERS_CSV_VERSION}-${rows}.csv`);
  const small = join(tmpdir(), `evsync-bench-intents-users-v${USERS_CSV_VERSION}-${rows / 10}.csv`);
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
  console.log(
    `  invalid rows: ${ours.invalidRows.toLocaleString('en')} of ${ours.rows.toLocaleString('en')} ` +
      `(the generator makes ${INVALID_ROW_SHARE * 100} % of its rows bad on purpose)`,
  );
  console.log(line(`same, ${(rows / 10).toLocaleString('en')} rows:`, ten));
  console.log('targets: ≥ 100,000 rows/s, ≤ 3× papaparse, peak RSS ≤ 200 MB on both files');
  console.log(
    `ratio to papaparse: ${(ours.seconds / papa.seconds).toFixed(2)}× wall, ${(ours.cpuSeconds / papa.cpuSeconds).toFixed(2)}× CPU ` +
      '(CPU time is the fairer figure on a shared machine)',
  );
  if (ours.rows !== rows || ten.rows !== rows / 10)
    throw new Error('row counts do not match the generated files');
  if (ours.invalidRows !== Math.round(rows * INVALID_ROW_SHARE))
    throw new Error(`expected ${Math.round(rows * INVALID_ROW_SHARE)} invalid rows, not ${ours.invalidRows}`);
}

await main();
