/**
 * Issue #39's memory target: `npm run demo`, every process of it summed (the CLI and the
 * embedded ledger's server with its backends and keeper), sampled every 50 ms from /proc.
 * RSS counts the server's shared memory once in each of its processes; PSS shares it out.
 * Target: ≤ 250 MB of summed RSS at the peak (printed in MiB, as farm-bench prints it).
 * EVSYNC_BENCH_PARTS=1 prints each process at the peak (docs/ledger.md, "Memory of a process").
 *
 *   npx tsx test/bench/demo-memory.ts [runs=3]
 *
 * Each run is in a fresh temporary folder (so the cluster is created, as on a first demo).
 * Linux only: it reads /proc.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stopEmbeddedServer } from '../../src/ledger/embedded-server.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

// MiB, as farm-bench and /proc's kB (KiB) count.
const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(0)} MiB`;

interface Sample {
  rss: number;
  pss: number;
  processes: number;
  /** Each process's RSS at this sample, by its command line's first words. */
  parts: string[];
}

function processTable(): Map<number, { parent: number; args: string }> {
  const table = new Map<number, { parent: number; args: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      table.set(Number(name), { parent, args });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return table;
}

function memoryOf(pid: number): { rss: number; pss: number } {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (field: string): number =>
      Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
    return { rss: kb('Rss') * 1024, pss: kb('Pss') * 1024 };
  } catch {
    return { rss: 0, pss: 0 };
  }
}

/** The demo's processes: its own tree, and the server started (detached) in its folder. */
function sample(root: number, folder: string): Sample {
  const table = processTable();
  const ours = new Set<number>([root]);
  for (const [pid, { args }] of table) if (args.includes(' -D ') && args.includes(folder)) ours.add(pid);
  for (let grown = true; grown;) {
    grown = false;
    for (const [pid, { parent }] of table)
      if (ours.has(parent) && !ours.has(pid)) {
        ours.add(pid);
        grown = true;
      }
  }
  let rss = 0;
  let pss = 0;
  const parts: string[] = [];
  for (const pid of ours) {
    const memory = memoryOf(pid);
    rss += memory.rss;
    pss += memory.pss;
    const name = (table.get(pid)?.args ?? '?').trim().split(' ').slice(0, 2).join(' ');
    parts.push(`${mb(memory.rss)} ${name}`);
  }
  return { rss, pss, processes: ours.size, parts };
}

async function measureDemo(): Promise<Sample & { seconds: number; exit: number | null }> {
  const folder = mkdtempSync(join(tmpdir(), 'evsync-demo-memory-'));
  const started = performance.now();
  // As `npm run demo` runs it (package.json), from a folder of the newcomer's own.
  const script = JSON.parse(readFileSync(resolve('package.json'), 'utf8')).scripts.demo as string;
  const [command, ...args] = script
    .split(' ')
    .map((word) => (word.startsWith('dist/') ? resolve(word) : word));
  const child = spawn(command!, args, { cwd: folder, stdio: 'ignore' });
  const peak: Sample = { rss: 0, pss: 0, processes: 0, parts: [] };
  const timer = setInterval(() => {
    const now = sample(child.pid!, folder);
    if (now.rss > peak.rss) Object.assign(peak, { rss: now.rss, processes: now.processes, parts: now.parts });
    peak.pss = Math.max(peak.pss, now.pss);
  }, 50);
  const exit = await new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  clearInterval(timer);
  const seconds = (performance.now() - started) / 1000;
  await stopEmbeddedServer(join(folder, '.evsync', 'demo'));
  await removeWorkspace(folder);
  return { ...peak, seconds, exit };
}

const runs = Number(process.argv[2] ?? 3);
const results = [];
for (let run = 0; run < runs; run++) {
  const result = await measureDemo();
  results.push(result);
  console.log(
    `run ${run + 1}: exit ${result.exit}, ${result.seconds.toFixed(1)} s, peak ${mb(result.rss)} RSS summed over ${result.processes} processes (${mb(result.pss)} PSS)`,
  );
  if (process.env.EVSYNC_BENCH_PARTS) console.log(`  ${result.parts.join('\n  ')}`);
}
const median = [...results].sort((a, b) => a.rss - b.rss)[Math.floor(results.length / 2)]!;
console.log(`median peak: ${mb(median.rss)} RSS summed (target ≤ 250), ${mb(median.pss)} PSS`);
