/**
 * `npm run bench -- NAME [args…]` runs one benchmark; `npm run bench` lists them and
 * `npm run bench -- all` runs each in turn. The table in README.md beside this file is the
 * one list of benchmarks, so a new one is registered by adding its row there.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const rows = readFileSync(join(here, 'README.md'), 'utf8').matchAll(
  /^\| `npx tsx test\/bench\/([\w-]+)\.ts[^`]*` \| (.+) \|$/gm,
);
const benches = new Map([...rows].map((match) => [match[1] ?? '', match[2] ?? '']));

const [name, ...args] = process.argv.slice(2);
if (name === undefined || !(name === 'all' || benches.has(name))) {
  if (name !== undefined) console.error(`No benchmark named "${name}".`);
  console.log('Benchmarks (npm run bench -- NAME [args], or all):');
  for (const [bench, what] of benches) console.log(`  ${bench.padEnd(22)} ${what.slice(0, 100)}`);
  process.exit(name === undefined ? 0 : 2);
}

let failed = 0;
for (const bench of name === 'all' ? [...benches.keys()] : [name]) {
  console.log(`\n=== ${bench}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${bench}.ts`), ...args], {
    stdio: 'inherit',
  });
  if (result.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
