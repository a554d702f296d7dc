import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../../errors/evsync-error.js';
import { stopEmbeddedServer } from '../../ledger/embedded-server.js';
import { openLedger } from '../../ledger/open-ledger.js';
import type { Logger } from '../../log/logger.js';
import { shippedMappingsDir } from '../../mapping/shipped-mappings.js';
import { PlatformClient } from '../../platform/platform-client.js';
import { startSandbox } from '../../sandbox/start-sandbox.js';
import type { CountersSnapshot } from '../../sandbox/sandbox-counters.js';
import { loadJobFile } from '../../sync/job-file.js';
import type { ProgressSink } from '../../sync/progress/progress-sink.js';
import type { RunSummary } from '../../sync/execute/run-summary.js';
import { runJob } from '../../sync/runs/run-job.js';

export interface DemoOptions {
  /**
   * Ledger folder; emptied first so that each demo starts from nothing (only a new, empty
   * or earlier demo folder). @defaultValue `$EVSYNC_DATA_DIR/demo`, else `./.evsync/demo`
   */
  dataDir?: string;
  logger: Logger;
  progress?: ProgressSink;
  signal?: AbortSignal;
}

export interface DemoResult {
  summary: RunSummary;
  dataDir: string;
  jobFile: string;
  sandboxUrl: string;
  counters: CountersSnapshot;
  /** The first failed and skipped rows, with their messages. */
  problems: Array<{ kind: string; key: string; action: string; where: string; message: string }>;
}

/** The package's own `jobs/demo.yaml`, found beside the shipped mappings (src or dist alike). */
export function demoJobFile(): string {
  return join(dirname(shippedMappingsDir()), 'jobs', 'demo.yaml');
}

/**
 * `evsync demo`: an in-process sandbox (seeded with one platform-wide attendee for the 203
 * path), a fresh embedded ledger, and `jobs/demo.yaml` over the bundled sample data.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const jobFile = demoJobFile();
  const job = loadJobFile(jobFile);
  const dataDir = resolve(options.dataDir ?? defaultDemoDir());
  await emptyDemoDir(dataDir);
  // Marked before anything else goes in, so that a demo that fails half-way is still its own.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(
    join(dataDir, DEMO_MARK),
    'This folder holds the ledger of `evsync demo`; the next demo empties it.\n',
  );
  const sandbox = await startSandbox({
    seed: join(job.baseDir, 'demo-data', 'sandbox-seed.yaml'),
    logger: options.logger,
  });
  const client = new PlatformClient({
    baseUrl: sandbox.url,
    keyId: sandbox.keyId,
    signingKey: sandbox.signingKey,
    rateLimit: { requestsPerSecond: job.rate.per_second, concurrency: job.rate.concurrency },
    logger: options.logger,
  });
  const ledger = await openLedger({ dataDir, databaseUrl: '' });
  try {
    const summary = await runJob(
      {
        ledger,
        platform: client,
        concurrency: job.rate.concurrency,
        logger: options.logger,
        ...(options.progress ? { progress: options.progress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      { job },
    );
    const problems: DemoResult['problems'] = [];
    for await (const result of ledger.eachResult(summary.run.id, { actions: ['failed', 'skipped'] })) {
      const where = result.origin ? `${result.origin.source} row ${result.origin.row}` : '';
      problems.push({
        kind: result.kind,
        key: result.key,
        action: result.action,
        where,
        message: result.errorMessage ?? '',
      });
    }
    return {
      summary,
      dataDir,
      jobFile,
      sandboxUrl: sandbox.url,
      counters: sandbox.counters.snapshot(),
      problems,
    };
  } finally {
    await client.close();
    await ledger.close();
    await sandbox.close();
  }
}

/** Marks a folder as the demo's own, so that only such a folder is ever emptied. */
const DEMO_MARK = '.evsync-demo';

export function defaultDemoDir(): string {
  const dataDir = process.env.EVSYNC_DATA_DIR;
  return dataDir ? join(dataDir, 'demo') : join('.evsync', 'demo');
}

/** Empties an earlier demo's folder; refuses any other folder that holds something. */
async function emptyDemoDir(dataDir: string): Promise<void> {
  if (!existsSync(dataDir)) return;
  const entries = readdirSync(dataDir);
  if (entries.length > 0 && !entries.includes(DEMO_MARK)) {
    throw new ConfigError(
      `the demo empties its data folder first, and ${dataDir} holds files that an earlier demo did not make; ` +
        'give --data-dir a new or empty folder (a demo folder from before demo folders were marked: delete it yourself)',
    );
  }
  // The earlier demo's ledger server goes first: one whose folder is deleted under it lingers.
  await stopEmbeddedServer(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
}
