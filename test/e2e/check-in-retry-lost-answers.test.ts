import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, runBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { people, usersCsv } from '../helpers/users-csv.js';

const CHECK_INS = 300;
/** Every third check-in is the key owner's own (no user_client_id): GET /check_in/my lists those. */
const isOwn = (i: number): boolean => i % 3 === 0;

function runIdOf(output: string): string {
  const match = /Run (\d{8}-\d{6}-[0-9a-f]+)/.exec(output);
  if (!match?.[1]) throw new Error(`no run id in:\n${output}`);
  return match[1];
}

// Issue 25, point 1: the retry a summary suggests after lost check-in answers must not post
// any check-in a second time. The platform recorded some of the POSTs whose answer was lost
// (commit-drop); §4.1 gives check-ins no client_id, so only the key owner's own can be
// looked up: the others are held back until the operator says `--resend-unknown`.
describe('evsync retry of check-ins whose answer was lost', () => {
  let ws: CliWorkspace;
  let sandbox: RunningSandbox;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    ws = cliWorkspace('evsync-check-in-retry-');
    sandbox = await ws.sandbox({ faults: 'reset=0.15,503=0.15,commit-drop=0.05,seed=25' });
    env = ws.envFor(sandbox);
    const users = people(30, 'cr');
    const rows = Array.from({ length: CHECK_INS }, (_, i) => {
      const user = isOwn(i) ? '' : users[i % users.length]!.id;
      return `cr-${i + 1},${user},,,"13.${1000 + i},52.5",Stand ${i + 1}`;
    });
    ws.write({
      'cr-users.csv': usersCsv(users),
      'cr-check_ins.csv': `check_in_id,user_client_id,location_type,location_id,center,display_value\n${rows.join('\n')}\n`,
      'cr.yaml':
        'name: cr\nrate: { per_second: 1000, concurrency: 8 }\nsteps:\n' +
        '  - { mapping: users, source: { csv: ./cr-users.csv } }\n' +
        '  - { mapping: check_ins, source: { csv: ./cr-check_ins.csv } }\n',
    });
  }, 60_000);
  afterAll(async () => ws?.close());

  /** The embedded ledger is one process's at a time: opened for a look, closed before the next command. */
  const withLedger = async <T>(look: (ledger: Ledger) => Promise<T>): Promise<T> => {
    const ledger = await openLedger({ dataDir: join(ws.dir, 'data') });
    try {
      return await look(ledger);
    } finally {
      await ledger.close();
    }
  };
  const heldBackIn = (runId: string) =>
    withLedger((ledger) =>
      ledger.results(runId, { kinds: ['check_in'], errorCodes: ['EVSYNC_CHECK_IN_HELD_BACK'] }),
    );
  const figures = (runId: string, retryId: string, held: number) =>
    withLedger(async (ledger) => {
      const lost = await ledger.resultCounts(runId, { errorCodes: ['EVSYNC_CHECK_IN_OUTCOME_UNKNOWN'] });
      const retried = await ledger.resultCounts(retryId);
      return (
        `check-ins: ${CHECK_INS}, lost in the run: ${lost.check_in?.failed ?? 0}, retry: ${JSON.stringify(retried.check_in)}, ` +
        `held back: ${held}, on the platform: ${sandbox.state.checkIns.size}, posted twice: ${postedTwice().length}`
      );
    });

  /** How many times each row's check-in is on the platform (its text names the row). */
  const postedTwice = (): string[] => {
    const seen = new Map<string, number>();
    for (const checkIn of sandbox.state.checkIns.values())
      seen.set(checkIn.displayValue ?? '', (seen.get(checkIn.displayValue ?? '') ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([text]) => text);
  };

  it('the summary says which are held back; retry posts none twice and needs --resend-unknown for the rest', async () => {
    const run = await runBuiltCli(['run', 'cr.yaml'], { cwd: ws.dir, env });
    expect(run.code).toBe(1);
    const runId = runIdOf(run.stdout);
    expect(run.stdout).toMatch(/check-ins the platform may have already \(first: cr-\d+/);
    expect(run.stdout).toContain(`evsync retry ${runId} --kind check_in --resend-unknown`);
    expect(postedTwice()).toEqual([]);

    const retry = await runBuiltCli(['retry', runId], { cwd: ws.dir, env });
    expect(retry.stdout).toContain('held back, not posted again');
    expect(postedTwice()).toEqual([]);

    const retryId = runIdOf(retry.stdout);
    const held = await heldBackIn(retryId);
    expect(held.length).toBeGreaterThan(0);
    for (const result of held) {
      // Only check-ins in another user's name: the key owner's own were looked up.
      expect(result.params.client_id).toBeTruthy();
      expect(result.errorMessage).toContain(
        `evsync retry ${runId} --client-id ${result.key} --resend-unknown`,
      );
    }
    if (process.env.EVSYNC_TEST_FIGURES)
      process.stderr.write(`${await figures(runId, retryId, held.length)}\n`);

    // `--kind check_in` alone still posts none of them: it says how to force it.
    const posts = sandbox.counters.callsTo('POST', '/check_in');
    const again = await runBuiltCli(['retry', runId, '--kind', 'check_in'], { cwd: ws.dir, env });
    expect(again.stdout).toContain(`evsync retry ${runId} --kind check_in --resend-unknown`);
    const heldAgain = await heldBackIn(runIdOf(again.stdout));
    // Still held (with, now, those whose answer the first retry lost in its turn: faults are on).
    expect(heldAgain.map((r) => r.key)).toEqual(expect.arrayContaining(held.map((r) => r.key)));
    expect(sandbox.counters.callsTo('POST', '/check_in') - posts).toBeLessThanOrEqual(
      CHECK_INS - held.length,
    );
    expect(postedTwice()).toEqual([]);
  }, 240_000);
});
