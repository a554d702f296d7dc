import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { stopEmbeddedServer } from '../../src/ledger/embedded-server.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { PlatformClient } from '../../src/platform/platform-client.js';
import type { RunningSandbox, SandboxOptions } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import type { EngineDeps } from '../../src/sync/execute/engine-deps.js';
import { resumeRun } from '../../src/sync/runs/resume-run.js';
import { runJob } from '../../src/sync/runs/run-job.js';
import { ledgerForPlatform } from '../../src/sync/runs/conference-scope.js';
import type { RunSummary } from '../../src/sync/execute/run-summary.js';
import { loadJobFile } from '../../src/sync/job-file.js';

/**
 * One end-to-end setup: a sandbox over real HTTP, a real client, and a ledger (embedded in
 * a temp folder, or PostgreSQL when `databaseUrl` is given), plus a folder for job files.
 */
export interface SyncHarness {
  sandbox: RunningSandbox;
  ledger: Ledger;
  client: PlatformClient;
  dir: string;
  deps: (extra?: Partial<EngineDeps>) => EngineDeps;
  /** Replaces the embedded ledger with an empty one (the platform keeps its data). */
  reopenLedger: () => Promise<void>;
  /** Writes files (CSV, YAML) into the job folder. */
  write: (files: Record<string, string>) => void;
  run: (jobFile: string, options?: { force?: boolean; extra?: Partial<EngineDeps> }) => Promise<RunSummary>;
  resume: (runId: string) => Promise<RunSummary>;
  close: () => Promise<void>;
}

export interface HarnessOptions {
  sandbox?: SandboxOptions;
  databaseUrl?: string;
  schema?: string;
  concurrency?: number;
}

export async function startHarness(options: HarnessOptions = {}): Promise<SyncHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-e2e-'));
  const sandbox = await startSandbox(options.sandbox ?? {});
  // Seen from the sandbox's conference, as a run sees it (`ledgerForPlatform`): a test that
  // wraps it (a proxy) still watches what the run does.
  const ledger = await ledgerForPlatform(
    await openLedger(
      options.databaseUrl
        ? { databaseUrl: options.databaseUrl, ...(options.schema ? { schema: options.schema } : {}) }
        : { dataDir: join(dir, 'ledger') },
    ),
    { baseUrl: sandbox.url, keyId: Number(sandbox.keyId) },
  );
  const concurrency = options.concurrency ?? 8;
  const client = new PlatformClient({
    baseUrl: sandbox.url,
    keyId: sandbox.keyId,
    signingKey: sandbox.signingKey,
    rateLimit: { requestsPerSecond: 5_000, burst: 50, concurrency },
    retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 8 },
  });
  const harness: SyncHarness = {
    sandbox,
    ledger,
    client,
    dir,
    deps: (extra = {}) => ({ ledger: harness.ledger, platform: client, concurrency, ...extra }),
    reopenLedger: async () => {
      await harness.ledger.close();
      // The folder's server goes first: a server whose folder is deleted under it lingers.
      await stopEmbeddedServer(join(dir, 'ledger'));
      rmSync(join(dir, 'ledger'), { recursive: true, force: true });
      harness.ledger = await ledgerForPlatform(await openLedger({ dataDir: join(dir, 'ledger') }), {
        baseUrl: sandbox.url,
        keyId: Number(sandbox.keyId),
      });
    },
    write: (files) => {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    },
    run: (jobFile, runOptions = {}) =>
      runJob(harness.deps(runOptions.extra), {
        job: loadJobFile(join(dir, jobFile)),
        force: runOptions.force ?? false,
      }),
    resume: (runId) => resumeRun(harness.deps(), runId),
    close: async () => {
      await client.close();
      await harness.ledger.close();
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * One harness for a whole test file, handed to `use` once started: opening a fresh
 * embedded ledger takes seconds, and much longer on a loaded machine. Before each test
 * the sandbox is emptied and its faults cleared, unless `resetBeforeEach` is false (tests
 * that build on what the ones before them synced).
 */
export function harnessPerFile(
  use: (harness: SyncHarness) => void,
  options: { resetBeforeEach?: boolean } = {},
): void {
  let harness: SyncHarness | undefined;
  beforeAll(async () => {
    harness = await startHarness();
    use(harness);
  }, 180_000);
  afterAll(async () => harness?.close(), 60_000);
  if (options.resetBeforeEach ?? true) {
    beforeEach(() => {
      harness?.sandbox.reset();
      harness?.sandbox.faults.set({});
    });
  }
}

export { jobYaml, people, usersCsv } from '../helpers/users-csv.js';
