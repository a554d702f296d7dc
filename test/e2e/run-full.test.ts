import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import type { PlanSummary } from '../../src/sync/plan/plan-summary.js';
import { FULL_RUN_LINE } from '../../src/sync/plan/plan-summary.js';
import { cliWorkspace, spawnBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { conferenceFiles } from './conference-fixture.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

// `evsync run --full` (docs/sync-engine.md, "Full runs"): an organiser removes an attendee
// from the conference by hand; the ledger still says the row is synced, so nightly runs
// leave it out until a full run sends every row again. One sandbox and one embedded ledger,
// the commands run in order.
describe('evsync run --full (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  const cli = (...args: string[]) => workspace.run(sandbox, args);
  /** kind, created, attached, updated, unchanged, deleted, skipped, failed */
  const row = (kind: string, ...counts: number[]) => new RegExp(`^${kind} +${counts.join(' +')}$`, 'm');
  const inConference = () => sandbox.state.conferenceUsers().map((user) => user.email);

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-full-');
    sandbox = await workspace.sandbox();
    // 5 users, 2 sessions; f-u2 speaks at f-e1, and every user has both sessions in a schedule.
    workspace.write(conferenceFiles({ prefix: 'f', users: 5, events: 2 }));
    const first = await cli('run', 'f.yaml');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(row('user', 5, 0, 0, 0, 0, 0, 0));
  }, 60_000);
  afterAll(async () => workspace.close());

  it('puts back a user removed by hand, with its speaker link and schedule, and duplicates nothing', async () => {
    const removed = sandbox.state.userByEmail('fu2@example.org')!;
    sandbox.state.removeUserFromConference(removed);
    expect(inConference()).not.toContain('fu2@example.org');

    // Today's behaviour: the ledger says it is synced, so a normal run leaves it out.
    const nightly = await cli('run', 'f.yaml');
    expect(nightly.code, nightly.stdout + nightly.stderr).toBe(0);
    expect(nightly.stdout).toMatch(row('user', 0, 0, 0, 5, 0, 0, 0));
    expect(nightly.stdout).not.toContain(FULL_RUN_LINE);
    expect(inConference()).not.toContain('fu2@example.org');

    const plan = await cli('plan', 'f.yaml', '--full', '--json');
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout) as PlanSummary;
    expect(planned.full).toBe(true);
    // Known users and events are updates; links are adds (an add of a link that is there is done).
    expect(planned.counts).toEqual({
      user: { update: 5 },
      event: { update: 2 },
      speaker: { create: 2 },
      schedule: { create: 5 },
    });
    const text = await cli('plan', 'f.yaml', '--full');
    expect(text.stdout).toContain(`Plan of f (upsert):\n\n${FULL_RUN_LINE}\n`);
    const dry = await cli('run', 'f.yaml', '--full', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(FULL_RUN_LINE);
    // The same plan, but for how long planning took.
    const table = (out: string): string =>
      out.slice(out.indexOf('kind')).replace(/planned in \d+ ms/, 'planned in N ms');
    expect(table(dry.stdout)).toBe(table(text.stdout));

    sandbox.counters.reset();
    const full = await cli('run', 'f.yaml', '--full');
    expect(full.code, full.stdout + full.stderr).toBe(0);
    expect(full.stdout).toContain(FULL_RUN_LINE);
    // The removed user answers the PUT with 404, is created again and attached (203: it
    // exists platform-wide); the others are updated.
    expect(full.stdout).toMatch(row('user', 0, 1, 4, 0, 0, 0, 0));
    expect(full.stdout).toMatch(row('event', 0, 0, 2, 0, 0, 0, 0));
    expect(full.stdout).toMatch(row('speaker', 2, 0, 0, 0, 0, 0, 0));
    expect(full.stdout).toMatch(row('schedule', 5, 0, 0, 0, 0, 0, 0));
    // As many intents sent per kind as the plan said.
    for (const [kind, counts] of Object.entries(planned.counts)) {
      const sent = full.stdout.match(new RegExp(`^${kind} +(\\d+) +(\\d+) +(\\d+)`, 'm'))!;
      const total = Number(sent[1]) + Number(sent[2]) + Number(sent[3]);
      expect(total, kind).toBe((counts.create ?? 0) + (counts.update ?? 0));
    }

    expect(sandbox.counters.duplicates()).toEqual({});
    expect(sandbox.counters.createsOf('user', 'fu2')).toBe(1);
    expect(sandbox.counters.callsTo('POST', '/user')).toBe(1);
    // One platform user per e-mail (the sandbox's own admin aside).
    const emails = [...sandbox.state.users.values()]
      .map((user) => user.email)
      .filter((email) => email.endsWith('@example.org'));
    expect(emails.sort()).toEqual([1, 2, 3, 4, 5].map((i) => `fu${i}@example.org`));
    expect(inConference()).toContain('fu2@example.org');
    const back = sandbox.state.userByEmail('fu2@example.org')!;
    expect(back.id).toBe(removed.id);
    expect(sandbox.state.scheduleOf(back.id)).toHaveLength(2);
    const e1 = sandbox.state.eventByClientId('fe1')!;
    expect(e1.speakers.map((speaker) => speaker.userId)).toContain(back.id);

    const runs = await cli('runs', '--limit', '1', '--json');
    expect(
      (JSON.parse(runs.stdout) as Array<{ options: Record<string, unknown> }>)[0]?.options,
    ).toMatchObject({
      full: true,
    });
    expect((await cli('runs', '--limit', '1')).stdout).toMatch(/upsert, full/);

    // The full run wrote its hashes as any run: the next one sends nothing.
    sandbox.counters.reset();
    const after = await cli('run', 'f.yaml');
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(after.stdout).toMatch(row('user', 0, 0, 0, 5, 0, 0, 0));
    expect(after.stdout).toMatch(row('event', 0, 0, 0, 2, 0, 0, 0));
    expect(after.stdout).toMatch(row('speaker', 0, 0, 0, 2, 0, 0, 0));
    expect(after.stdout).toMatch(row('schedule', 0, 0, 0, 5, 0, 0, 0));
    expect(sentBesidesChecks(sandbox.counters.snapshot())).toBe(0);
  }, 120_000);

  it('a resume of an interrupted full run finishes it as planned: a full run', async () => {
    const removed = sandbox.state.userByEmail('fu4@example.org')!;
    sandbox.state.removeUserFromConference(removed);
    // Slow answers, so that the stop comes while the users are still being sent.
    sandbox.faults.set({ latency: { minMs: 500, maxMs: 500 } });
    sandbox.counters.reset();
    const child = spawnBuiltCli(['run', 'f.yaml', '--full'], {
      cwd: workspace.dir,
      env: workspace.envFor(sandbox),
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    await waitFor(() => Promise.resolve(sandbox.counters.callsTo('PUT', '/user/member/{id}') >= 1));
    child.kill('SIGINT');
    expect(await exited).toBe(3);
    sandbox.faults.set({});
    // Stopped before the links: fu4's schedule, cleared with its removal, is not back yet.
    expect(sandbox.state.scheduleOf(removed.id)).toHaveLength(0);

    const runs = JSON.parse((await cli('runs', '--limit', '1', '--json')).stdout) as Array<{
      id: string;
      status: string;
    }>;
    expect(runs[0]?.status).toBe('interrupted');
    const resumed = await cli('resume', runs[0]!.id);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(FULL_RUN_LINE);
    // The whole run's results: every row sent, none found unchanged.
    expect(resumed.stdout).toMatch(row('speaker', 2, 0, 0, 0, 0, 0, 0));
    expect(resumed.stdout).toMatch(row('schedule', 5, 0, 0, 0, 0, 0, 0));
    expect(sandbox.state.scheduleOf(removed.id)).toHaveLength(2);
    expect(sandbox.state.userByEmail('fu4@example.org')?.inConference).toBe(true);
    expect(sandbox.counters.duplicates()).toEqual({});
  }, 120_000);
});
