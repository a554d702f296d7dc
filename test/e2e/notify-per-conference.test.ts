import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusDocument } from '../../src/cli/commands/status.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { startWebhookReceiver } from '../helpers/notice-receivers.js';

const SECRET = 'per-conference-hook-secret-42';
const CSV =
  'client_id,email,first_name,last_name\n' +
  Array.from({ length: 10 }, (_, i) => `p${i + 1},p${i + 1}@example.org,Ann,Person${i + 1}\n`).join('');
const JOB = `name: people
steps:
  - mapping: users
    source: { csv: ./people.csv }
notify:
  channels:
    - webhook: { url_env: TEAM_HOOK_URL, secret_env: TEAM_HOOK_SECRET }
  retry: { attempts: 1 }
`;

// Issue #41 point 4: `job_notices` was keyed by the job's name alone. The same job run against
// conference A (failing) and B (healthy), alternately, told A's team three problems and B's
// team two false "back to normal". Its notices are now per job and conference.
describe('one job name in two conferences (built CLI)', { timeout: 240_000 }, () => {
  let workspace: CliWorkspace;
  let confA: RunningSandbox;
  let confB: RunningSandbox;
  let hookA: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let hookB: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-notify-conf-');
    confA = await workspace.sandbox();
    confB = await workspace.sandbox();
    hookA = await startWebhookReceiver(SECRET);
    hookB = await startWebhookReceiver(SECRET);
    workspace.write({ 'people.yaml': JOB, 'people.csv': CSV });
  });

  afterAll(async () => {
    await hookA?.close();
    await hookB?.close();
    await workspace?.close();
  });

  it("tells each conference's team its own state, and status shows both", async () => {
    // Conference A is down for good: every call answers 503.
    confA.faults.set({ error503: { fraction: 1 } });
    const runA = async (): Promise<number | null> =>
      (
        await workspace.run(confA, ['run', 'people.yaml'], {
          TEAM_HOOK_URL: hookA.url,
          TEAM_HOOK_SECRET: SECRET,
        })
      ).code;
    const runB = async (): Promise<number | null> =>
      (
        await workspace.run(confB, ['run', 'people.yaml'], {
          TEAM_HOOK_URL: hookB.url,
          TEAM_HOOK_SECRET: SECRET,
        })
      ).code;
    expect(await runA()).toBe(3);
    expect(await runB()).toBe(0);
    expect(await runA()).toBe(3);
    expect(await runB()).toBe(0);
    expect(await runA()).toBe(3);

    const toldA = hookA.received.map((m) => [m.body.event, m.body.conference]);
    const toldB = hookB.received.map((m) => [m.body.event, m.body.conference]);
    process.stdout.write(
      `conference A's team: ${JSON.stringify(toldA)}; B's team: ${JSON.stringify(toldB)}\n`,
    );
    expect(toldA).toEqual([['problem', new URL(confA.url).host]]);
    expect(toldB).toEqual([]);

    const status = await workspace.run(confB, ['status', '--json']);
    const jobs = (JSON.parse(status.stdout) as StatusDocument).syncJobs.filter((j) => j.job === 'people');
    expect(
      jobs
        .map((j) => [j.conference, j.lastRun?.status, j.notify?.state])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual(
      [
        [new URL(confA.url).host, 'aborted', 'problem'],
        [new URL(confB.url).host, 'completed', 'ok'],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const text = await workspace.run(confB, ['status']);
    expect(text.stdout).toContain(`people on ${new URL(confA.url).host}: told since`);
  });
});
