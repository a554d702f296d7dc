import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedEnv, type CliProcess, type DistributedEnv } from '../helpers/distributed-env.js';
import { startWebhookReceiver } from '../helpers/notice-receivers.js';
import { people, usersCsv } from '../helpers/users-csv.js';
import { serviceAvailable } from '../helpers/services.js';
import { waitFor } from '../helpers/wait-for.js';

// Issue #29 items 1 and 2 in distributed mode, as an operator meets them: a schedule every
// four seconds, its only worker killed past its period (a dead schedule: the dashboard's
// watch tells it once), a worker back (one "back to normal"), then the job file broken (each
// tick is a failed run with the reason, told once). The built CLI.
const ready = (await serviceAvailable('redis')) && (await serviceAvailable('postgres'));
const SECRET = 'schedule-hook-secret-123';

const job = (valid: boolean): string =>
  (valid ? '' : 'steps: not-a-list\n') +
  `name: tick
schedule: { cron: "*/4 * * * * *", seconds: true }
notify:
  channels:
    - webhook: { url_env: OPS_HOOK_URL, secret_env: OPS_HOOK_SECRET }
  when:
    missed_schedule: { grace: 2s }
` +
  (valid ? 'steps:\n  - { mapping: users, source: { csv: ./tick.csv } }\n' : '');

describe.runIf(ready)('notifications of schedules (distributed, built CLI)', () => {
  let env: DistributedEnv;
  let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let notifyEnv: NodeJS.ProcessEnv;
  const rules = (from: number) =>
    hook.received.slice(from).map((m) => {
      const body = m.body as { event: string; problems: Array<{ rule: string }> };
      return `${body.event}:${body.problems.map((p) => p.rule).join(',')}`;
    });
  const tickRuns = async () => await (await env.ledger()).listRuns(200, { jobName: 'tick' });

  beforeAll(async () => {
    env = await startDistributedEnv();
    hook = await startWebhookReceiver(SECRET);
    notifyEnv = { OPS_HOOK_URL: hook.url, OPS_HOOK_SECRET: SECRET, EVSYNC_NOTIFY_CHECK_SECONDS: '1' };
    env.write({ 'tick.csv': usersCsv(people(5, 'tick')), 'tick.yaml': job(true) });
    const scheduled = await env.cli(['schedule', 'tick.yaml']);
    expect(scheduled.code, scheduled.output).toBe(0);
    // No worker yet: the schedule would not fire, and that is said (issue #30 item 12).
    expect(scheduled.output).toContain('No `evsync worker` is connected now: it will not fire until one is');
  }, 120_000);

  it('a run with no worker connected says so at once, and goes on when one starts', async () => {
    const job = env.usersJob('lonely', 5, 50, 2);
    const run = env.spawnCli(['run', job]);
    const started = Date.now();
    await waitFor(() => Promise.resolve(run.output().includes('no worker is connected')), 30_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    const worker = env.spawnCli(['worker']);
    expect(await run.exited).toBe(0);
    worker.child.kill('SIGTERM');
    await worker.exited;
  }, 120_000);

  afterAll(async () => {
    await env?.cli(['schedule', '--remove', 'tick']).catch(() => undefined);
    await hook?.close();
    await env?.close();
  }, 60_000);

  it('tells a schedule whose only worker died, once, and its return once', async () => {
    const first: CliProcess = env.spawnCli(['worker'], notifyEnv);
    await waitFor(async () => (await tickRuns()).some((run) => run.status === 'completed'), 90_000);
    // Killed just after a tick ended, so that no run is cut off: a kill that lands while a
    // tick runs leaves that run cut off, which the watch tells too (run_failed), as it should.
    const ticks = (await tickRuns()).length;
    await waitFor(async () => {
      const runs = await tickRuns();
      return runs.length > ticks && runs.every((run) => run.status !== 'running');
    }, 90_000);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(hook.received).toEqual([]);
    // No worker: the dashboard's watch is what looks.
    env.spawnCli(['dashboard', '--port', '0'], { ...notifyEnv, EVSYNC_DASHBOARD_TOKEN: 'x'.repeat(32) });
    await waitFor(() => Promise.resolve(hook.received.length > 0), 60_000);
    await sleep(4000);
    expect(rules(0)).toEqual(['problem:missed_schedule']);
    expect(hook.received[0]!.signed).toBe(true);
    expect((hook.received[0]!.body as { problems: Array<{ text: string }> }).problems[0]!.text).toContain(
      'is a worker running?',
    );
    const status = JSON.parse((await env.cli(['status', '--json'])).output) as {
      syncJobs: Array<{ job: string; overdue: boolean; notify: { state: string } }>;
    };
    expect(status.syncJobs.find((j) => j.job === 'tick')).toMatchObject({
      overdue: true,
      notify: { state: 'problem' },
    });

    env.spawnCli(['worker'], notifyEnv);
    await waitFor(() => Promise.resolve(hook.received.length > 1), 60_000);
    await sleep(4000);
    expect(rules(0)).toEqual(['problem:missed_schedule', 'recovered:missed_schedule']);
  }, 240_000);

  it('records a tick whose job file broke as a failed run with the reason, and tells it once', async () => {
    const before = hook.received.length;
    env.write({ 'tick.yaml': job(false) });
    await waitFor(
      async () => (await tickRuns()).filter((run) => run.status === 'failed').length >= 2,
      60_000,
    );
    await waitFor(() => Promise.resolve(hook.received.length > before), 30_000);
    await sleep(2000);
    expect(rules(before)).toEqual(['problem:run_failed']);
    const [failed] = (await tickRuns()).filter((run) => run.status === 'failed');
    expect(String(failed!.options.error)).toContain('tick.yaml');
    const listed = await env.cli(['runs', '--job', 'tick', '--status', 'failed']);
    expect(listed.code).toBe(0);
    expect(listed.output).toContain('failed before it started');
    expect(listed.output).toContain('schedule');
    env.write({ 'tick.yaml': job(true) });
    await waitFor(() => Promise.resolve(hook.received.length > before + 1), 60_000);
    expect(rules(before)).toEqual(['problem:run_failed', 'recovered:run_failed']);
  }, 180_000);
});
