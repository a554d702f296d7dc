import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusDocument } from '../../src/cli/commands/status.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, runBuiltCli, spawnBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { waitFor } from '../helpers/wait-for.js';

/** The default `retry.deadline` (docs/notifications.md): all attempts of one delivery end within it. */
const DEADLINE_MS = 20_000;

const JOB = `name: people
steps:
  - mapping: users
    source: { csv: ./people.csv }
notify:
  channels:
    - webhook: { url_env: HANGING_HOOK_URL }
  when:
    failed_rows: 1
`;
const CSV = 'client_id,email,first_name,last_name\np1,p1@example.org,Ann,One\np2,not-an-email,Bob,Two\n';

// Issue #41 point 8: a webhook that never answers held the job's lock until its 4 attempts of
// 15 s had passed (68 s): a second run was refused meanwhile. The run's end now releases the
// lock, and the delivery ends within `retry.deadline` in the background of the process.
describe('a webhook that never answers (built CLI)', { timeout: 120_000 }, () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let hook: Server;
  let hookUrl: string;
  const requests: number[] = [];
  let first: ChildProcess | undefined;

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-hanging-hook-');
    sandbox = await workspace.sandbox();
    // Takes the request and never answers.
    hook = createServer(() => requests.push(Date.now()));
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    workspace.write({ 'people.yaml': JOB, 'people.csv': CSV });
  });

  afterAll(async () => {
    if (first?.exitCode === null) first.kill('SIGKILL');
    hook?.closeAllConnections();
    await new Promise((resolve) => hook?.close(resolve));
    await workspace?.close();
  });

  it('releases the job when the run ends, and exits within the delivery deadline', async () => {
    const env = { ...workspace.envFor(sandbox), HANGING_HOOK_URL: hookUrl };
    const started = Date.now();
    const child = spawnBuiltCli(['run', 'people.yaml'], { cwd: workspace.dir, env });
    first = child;
    let firstStderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (firstStderr += chunk.toString()));
    const firstExit = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.once('close', (code) => resolve({ code, at: Date.now() })),
    );
    // The run has ended and its notice is being delivered to a receiver that hangs.
    await waitFor(() => Promise.resolve(requests.length > 0));
    const askedAt = requests[0]!;

    const second = await runBuiltCli(['run', 'people.yaml'], { cwd: workspace.dir, env });
    expect(second.stderr).not.toContain('EVSYNC_JOB_BUSY');
    // Accepted, and ended as the first did: one row failed (exit 1), nothing new to tell.
    expect(second.code).toBe(1);

    const { code, at } = await firstExit;
    expect(code, firstStderr).toBe(1);
    // Within the deadline, plus the time to record the delivery and close the ledger.
    expect(at - askedAt).toBeLessThan(DEADLINE_MS + 5_000);
    process.stdout.write(
      `hanging webhook: run 1 exited ${((at - started) / 1000).toFixed(1)} s after its start, ` +
        `${((at - askedAt) / 1000).toFixed(1)} s after its notice was sent; ${requests.length} attempts\n`,
    );

    const status = await workspace.run(sandbox, ['status', '--json']);
    const job = (JSON.parse(status.stdout) as StatusDocument).syncJobs.find((j) => j.job === 'people')!;
    expect(job.notify?.undelivered).toEqual([
      expect.objectContaining({ channel: `webhook ${new URL(hookUrl).origin}` }),
    ]);
  });
});
