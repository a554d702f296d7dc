import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { UNCHANGED_SEQ_BASE } from '../../src/ledger/unchanged-sql.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import {
  cliWorkspace,
  startBuiltDashboard,
  type CliWorkspace,
  type SpawnedResult,
} from '../helpers/built-cli.js';
import { sandboxCounters } from './cli-in-process.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

const HEADER = 'client_id,email,first_name,last_name\n';
const people = (p1 = 'One', p2 = 'Two'): string =>
  `${HEADER}p1,p1@example.org,Ann,${p1}\np2,p2@example.org,Bo,${p2}\np3,p3@example.org,Cy,Three\np4,p4@example.org,Di,Four\n`;
const JOB = 'name: people\nsteps:\n  - mapping: users\n    source: { csv: ./people.csv }\n';
const TOKEN = 'prune-e2e-token-0123456789abcdef';

interface LedgerCounts {
  results: Record<string, number>;
  planned: Record<string, number>;
  hashes: Map<string, string>;
  ids: Map<string, number>;
  kept: Record<string, string[]>;
}

// Issue #28 item 4 as a user meets it: the built CLI against a sandbox, one embedded
// ledger for the whole file, the tests in order.
describe('evsync prune (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  const cli = (...args: string[]): Promise<SpawnedResult> => workspace.run(sandbox, args);
  /** The runs in the order they were made: created, p1 updated, aborted (wrong key), p2 updated, nothing changed. */
  let runs: { created: string; p1: string; aborted: string; p2: string; unchanged: string };

  /** The ledger as the CLI left it (the embedded ledger is free once the CLI exits). */
  async function ledgerCounts(): Promise<LedgerCounts> {
    const ledger = await openLedger({ dataDir: join(workspace.dir, 'data'), databaseUrl: '' });
    try {
      const counts: LedgerCounts = { results: {}, planned: {}, hashes: new Map(), ids: new Map(), kept: {} };
      for (const [name, id] of Object.entries(runs)) {
        // Recorded result rows: unchanged keys, kept apart (docs/ledger.md), are their own table.
        const results = (await ledger.results(id)).filter((result) => result.seq < UNCHANGED_SEQ_BASE);
        counts.results[name] = results.length;
        counts.kept[name] = results.map((result) => result.key).sort();
        counts.planned[name] = await ledger.countPlanned(id);
      }
      const conference = await ledger.findConference(sandbox.url);
      const scoped = conference ? ledger.forConference(conference) : ledger;
      counts.hashes = await scoped.loadHashes('user');
      counts.ids = await scoped.loadIdMap('user');
      return counts;
    } finally {
      await ledger.close();
    }
  }

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-prune-');
    sandbox = await workspace.sandbox();
    workspace.write({ 'people.csv': people(), 'people.yaml': JOB });
    expect((await cli('run', 'people.yaml')).code).toBe(0);
    workspace.write({ 'people.csv': people('Uno') });
    expect((await cli('run', 'people.yaml')).code).toBe(0);
    workspace.write({ 'people.csv': people('Uno', 'Dos') });
    // A wrong signing key: the platform refuses it, the run aborts and can still be resumed.
    const refused = await workspace.run(sandbox, ['run', 'people.yaml'], { EVSYNC_SIGNING_KEY: 'wrong-key' });
    expect(refused.code).toBe(3);
    expect((await cli('run', 'people.yaml')).code).toBe(0);
    expect((await cli('run', 'people.yaml')).code).toBe(0);
    const listed = JSON.parse((await cli('runs', '--json')).stdout) as Array<{ id: string; status: string }>;
    const [unchanged, p2, aborted, p1, created] = listed.map((run) => run.id);
    expect(listed.map((run) => run.status)).toEqual([
      'completed',
      'completed',
      'aborted',
      'completed',
      'completed',
    ]);
    runs = { created: created!, p1: p1!, aborted: aborted!, p2: p2!, unchanged: unchanged! };
  }, 180_000);
  afterAll(async () => {
    await workspace?.close();
  });

  it('--dry-run says what would go and removes nothing', async () => {
    const before = await ledgerCounts();
    const dry = await cli('prune', '--keep-runs', '1', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Would prune 2 runs');
    expect(dry.stdout).toContain(`${runs.aborted} (people): it is aborted`);
    expect(await ledgerCounts()).toEqual(before);
  }, 60_000);

  it('removes what it says and nothing else: synced state, its result rows, a resumable run and the newest stay', async () => {
    const before = await ledgerCounts();
    // Each later run recorded the one row it changed; its unchanged rows are keys (docs/ledger.md).
    expect(before.results).toMatchObject({ created: 4, p1: 1, p2: 1, unchanged: 0 });
    const pruned = await cli('prune', '--keep-runs', '1', '--json');
    expect(pruned.code).toBe(0);
    const report = JSON.parse(pruned.stdout) as {
      runs: Array<{ runId: string; tally: { tables: Record<string, { removed: number; kept: number }> } }>;
      held: Array<{ runId: string; reason: string }>;
    };
    expect(report.runs.map((run) => run.runId)).toEqual([runs.created, runs.p1]);
    expect(report.held.map((held) => held.runId)).toEqual([runs.aborted, runs.p2]);
    const after = await ledgerCounts();
    // What the report says went is exactly what the ledger lost.
    for (const { runId, tally } of report.runs) {
      const name = Object.entries(runs).find(([, id]) => id === runId)![0];
      expect(before.results[name]! - after.results[name]!).toBe(tally.tables.intent_results!.removed);
      expect(before.planned[name]! - after.planned[name]!).toBe(tally.tables.run_intents!.removed);
    }
    // The first run still holds the synced content of p3 and p4; the second that of p1.
    expect(after.kept.created).toEqual(['p3', 'p4']);
    expect(after.kept.p1).toEqual(['p1']);
    // The runs held back keep what they had; completed, they had no planned intent of a success.
    expect(after.results).toMatchObject({ aborted: before.results.aborted, p2: 1, unchanged: 0 });
    expect(after.planned).toMatchObject({ aborted: before.planned.aborted, p2: 0, unchanged: 0 });
    expect(after.hashes).toEqual(before.hashes);
    expect(after.ids).toEqual(before.ids);
    expect(after.hashes.size).toBe(4);

    // Pruning again finds nothing more.
    const again = await cli('prune', '--keep-runs', '1');
    expect(again.stdout).toContain('Nothing to prune.');
  }, 60_000);

  it('runs marks a pruned run; report says so; retry and resume refuse it', async () => {
    const listed = await cli('runs');
    expect(listed.stdout).toMatch(new RegExp(`${runs.created} .* completed, pruned `));
    expect(listed.stdout).toMatch(new RegExp(`${runs.unchanged} .* completed  `));
    const report = await cli('report', runs.created);
    expect(report.code).toBe(0);
    expect(report.stderr).toMatch(
      /Rows of this run were pruned on .* \(retention: beyond the newest 1 run\); counts are kept/,
    );
    for (const command of ['retry', 'resume']) {
      const refused = await cli(command, runs.created);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`Cannot ${command} run ${runs.created}: its rows were pruned on`);
    }
  }, 90_000);

  it('a pruned run’s page on the dashboard says so, with its counts', async () => {
    const dashboard = await startBuiltDashboard({
      cwd: workspace.dir,
      env: { EVSYNC_DASHBOARD_TOKEN: TOKEN, EVSYNC_DATA_DIR: join(workspace.dir, 'data') },
    });
    try {
      const get = async (path: string): Promise<string> => {
        const response = await fetch(`${dashboard.base}${path}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(response.status).toBe(200);
        return response.text();
      };
      const page = await get(`/runs/${runs.created}`);
      expect(page).toMatch(
        /Rows of this run were pruned on \d{4}-\d\d-\d\d \d\d:\d\d UTC \(retention: beyond the newest 1 run\); counts are kept/,
      );
      expect(page).toMatch(
        /data-kind="user">\s*<td[^>]*>user<\/td>[\s\S]*?data-count="created"[^>]*>\s*4\s*</,
      );
      expect(page).not.toContain('/resume"');
      const list = await get('/runs');
      expect(list).toMatch(new RegExp(`data-run="${runs.created}"[\\s\\S]*?data-pruned`));
      expect(await get(`/runs/${runs.unchanged}`)).not.toContain('were pruned');
    } finally {
      await dashboard.stop();
    }
  }, 90_000);

  it('a nightly run after pruning sends nothing for unchanged rows', async () => {
    const before = sentBesidesChecks(await sandboxCounters(sandbox));
    const nightly = await cli('run', 'people.yaml');
    expect(nightly.code).toBe(0);
    expect(sentBesidesChecks(await sandboxCounters(sandbox))).toBe(before);
    // The job's retention from the environment: a bare prune applies it.
    const pruned = await workspace.run(sandbox, ['prune'], { EVSYNC_RETENTION_KEEP_RUNS: '1' });
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain('Nothing to prune.');
    expect(pruned.stdout).toContain(`${runs.aborted} (people): it is aborted`);
    const bare = await cli('prune');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('Nothing says what to prune');
    // The help says so as the README does: 90d and 30 are examples, not defaults (issue #40).
    const help = await cli('prune', '--help');
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'there is no built-in default: with none of them, nothing is removed (exit 2)',
    );
  }, 90_000);
});
