/**
 * The CSV source against papaparse alone: rows/s and peak RSS on a generated
 * users file of 1,000,000 rows and one of 100,000 (memory must not grow with the file).
 *
 *   npx tsx test/bench/csv-parse.ts [rows=1000000]
 *
 * Each measurement runs in a child process of its own, so peak RSS is that run's alone.
 * Baselines: papaparse streaming the same file in chunk mode (what the source uses inside)
 * and in step mode with header: true (the usual way to call it).
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Papa from 'papaparse';
import { createCsvSource } from '../../src/sources/csv/csv-source.js';
import { generateUsersCsv, USERS_CSV_VERSION } from './generate-users-csv.js';

type Mode = 'papaparse-chunk' | 'papaparse-step' | 'source';
interface Measure {
  mode: Mode;
  rows: number;
  ms: number;
  /** User + system CPU time: steadier than wall time on a shared machine. */
  cpuMs: number;
  peakRssMb: number;
}

async function papaparse(file: string, step: boolean): Promise<number> {
  let rows = 0;
  await new Promise<void>((resolve, reject) => {
    Papa.parse<string[]>(createReadStream(file, 'utf8') as unknown as Papa.LocalFile, {
      header: step,
      skipEmptyLines: true,
      ...(step
        ? { step: () => void rows++ }
        : { chunk: (results: Papa.ParseResult<string[]>) => void (rows += results.data.length) }),
      complete: () => resolve(),
      error: reject,
    });
  });
  return step ? rows : rows - 1; // chunk mode counts the header row
}

async function source(file: string): Promise<number> {
  let rows = 0;
  for await (const item of createCsvSource({ path: file }).rows()) {
    if (!item.ok) throw new Error(`unexpected problem: ${item.message}`);
    rows++;
  }
  return rows;
}

async function child(mode: Mode, file: string): Promise<void> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const rows = mode === 'source' ? await source(file) : await papaparse(file, mode === 'papaparse-step');
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ mode, rows, ms, cpuMs, peakRssMb } satisfies Measure));
}

function measure(mode: Mode, file: string): Measure {
  const result = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--child', mode, file],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  );
  if (result.status !== 0) throw new Error(`${mode} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Measure;
}

async function main(): Promise<void> {
  const [flag, mode, file] = process.argv.slice(2);
  if (flag === '--child') return child(mode as Mode, file!);
  const big = Number(flag ?? 1_000_000);
  for (const rows of [big, Math.round(big / 10)]) {
    const path = join(tmpdir(), `evsync-bench-users-v${USERS_CSV_VERSION}-${rows}.csv`);
    if (!existsSync(path)) await generateUsersCsv(path, rows);
    const mb = statSync(path).size / 1e6;
    console.log(`\n${rows.toLocaleString('en')} rows, ${mb.toFixed(1)} MB (${path})`);
    const results = (['papaparse-chunk', 'papaparse-step', 'source'] as const).map((m) => measure(m, path));
    for (const r of results) {
      if (r.rows !== rows) throw new Error(`${r.mode} read ${r.rows} rows, expected ${rows}`);
      const perSecond = Math.round(r.rows / (r.ms / 1000)).toLocaleString('en');
      console.log(
        `  ${r.mode.padEnd(16)} ${(r.ms / 1000).toFixed(2)} s wall (${perSecond.padStart(9)} rows/s)  ` +
          `${(r.cpuMs / 1000).toFixed(2)} s CPU (${Math.round(r.rows / (r.cpuMs / 1000))
            .toLocaleString('en')
            .padStart(9)} rows/CPU-s)  ` +
          `peak RSS ${r.peakRssMb.toFixed(0)} MB`,
      );
    }
    const [chunk, step, ours] = results as [Measure, Measure, Measure];
    const ratio = (a: Measure, b: Measure): string =>
      `${(a.ms / b.ms).toFixed(2)}× wall, ${(a.cpuMs / b.cpuMs).toFixed(2)}× CPU`;
    console.log(
      `  ratio source / papaparse-chunk: ${ratio(ours, chunk)}; source / papaparse-step: ${ratio(ours, step)}`,
    );
  }
}

await main();
