import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, cliWorkspace } from '../helpers/built-cli.js';
import { people, usersCsv } from '../helpers/users-csv.js';

/** Written beside the job: says at exit which of these packages the process loaded. */
const LOADED_AT_EXIT = `process.on('exit', () => {
  const loaded = Object.keys(require('node:module')._cache)
    .map((file) => /node_modules\\/(prom-client|cron-parser|@opentelemetry\\/api)\\//.exec(file)?.[1])
    .filter((name) => name !== undefined);
  process.stderr.write('LOADED ' + JSON.stringify([...new Set(loaded)].sort()) + '\\n');
});
`;

function loadedBy(stderr: string): string[] {
  const line = stderr.split('\n').find((text) => text.startsWith('LOADED '));
  if (line === undefined) throw new Error(`no LOADED line: ${stderr}`);
  return JSON.parse(line.slice('LOADED '.length)) as string[];
}

// prom-client (with the OpenTelemetry API it loads) and cron-parser took some 90 ms of every
// start of the CLI, a run's included, though only a scrape of /metrics and a job's schedule
// read them (docs/metrics.md): they are required on first use.
describe("a run's start-up", () => {
  const ws = cliWorkspace('evsync-start-up-modules-');
  afterAll(() => ws.close());

  it('loads neither the metrics library nor the cron parser, which the first scrape loads', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'loaded-at-exit.cjs': LOADED_AT_EXIT,
      'job.yaml': 'name: start-up\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv': usersCsv(people(3)),
    });
    const preloadFile = join(ws.dir, 'loaded-at-exit.cjs');
    const preload = { NODE_OPTIONS: `--require ${preloadFile}` };
    const run = await ws.run(sandbox, ['run', 'job.yaml'], preload);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const emails = [...sandbox.state.users.values()].map((user) => user.email);
    expect(emails).toEqual(expect.arrayContaining(people(3).map((person) => person.email)));
    expect(loadedBy(run.stderr)).toEqual([]);
    // The same preload sees prom-client once the registry is read, as a scrape reads it.
    const metrics = pathToFileURL(join(dirname(BUILT_CLI), '../metrics/process-metrics.js')).href;
    const scrape = spawnSync(
      process.execPath,
      [
        '--require',
        preloadFile,
        '--input-type=module',
        '-e',
        `const { metricsRegistry } = await import(${JSON.stringify(metrics)}); await metricsRegistry().metrics();`,
      ],
      { encoding: 'utf8' },
    );
    expect(loadedBy(scrape.stderr), scrape.stderr).toEqual(['@opentelemetry/api', 'prom-client']);
  }, 60_000);
});
