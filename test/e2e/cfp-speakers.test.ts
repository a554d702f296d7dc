import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import type { PlanSummary } from '../../src/sync/plan/plan-summary.js';
import { runCli } from '../helpers/run-cli.js';
import { stubCliEnv } from './cli-in-process.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const JOBS = resolve(import.meta.dirname, '../../jobs');

/** The Sessionize sample's speakers (id → full name), read from the export itself. */
function exportSpeakers(): Map<string, string> {
  const text = readFileSync(join(JOBS, 'cfp-data/sessionize-all.json'), 'utf8').replace(/^\uFEFF/, '');
  const all = JSON.parse(text) as {
    speakers: Array<{ id: string; fullName: string }>;
    sessions: Array<{ speakers: string[] }>;
  };
  return new Map(all.speakers.map((speaker) => [speaker.id, speaker.fullName]));
}

// The shipped example job (jobs/cfp-speakers.yaml) as an organiser runs it: a public
// Sessionize export has no e-mails, the organiser's sheet supplies them.
describe('jobs/cfp-speakers.yaml: a CfP export with the speakers’ e-mails from a second source', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-cfp-'));
    cpSync(JOBS, join(dir, 'jobs'), { recursive: true });
    sandbox = await startSandbox();
    stubCliEnv(sandbox, join(dir, 'data'));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await sandbox.close();
    await removeWorkspace(dir);
  });

  it('plans and syncs every speaker as a user with their e-mail, and every speaker link', async () => {
    const job = join(dir, 'jobs/cfp-speakers.yaml');
    const plan = await runCli('plan', job, '--json');
    expect(plan.code).toBe(0);
    const planned = JSON.parse(plan.stdout) as PlanSummary;
    expect(planned.counts).toEqual({ user: { create: 10 }, event: { create: 11 }, speaker: { create: 10 } });
    expect(planned.losses).toEqual([]);

    const run = await runCli('run', job);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^user +10 +0 +0 +0 +0 +0 +0$/m);
    expect(run.stdout).toMatch(/^speaker +10 +0 +0 +0 +0 +0 +0$/m);

    const speakers = exportSpeakers();
    for (const [id, fullName] of speakers) {
      const user = sandbox.state.userByClientId(`sz-${id}`);
      const first = fullName.split(' ')[0]!.toLowerCase();
      expect(user?.email, fullName).toBe(`${first}.test@example.org`);
    }
    // Sophia's row has no speaker id: she was matched by her name.
    expect(sandbox.state.userByClientId('sz-00000000-0000-0000-0000-000000000000')?.email).toBe(
      'sophia.test@example.org',
    );
    const linked = [...speakers.keys()].filter((id) => {
      const user = sandbox.state.userByClientId(`sz-${id}`);
      return [...sandbox.state.events.values()].some((event) =>
        event.speakers.some((speaker) => speaker.userId === user?.id),
      );
    });
    expect(linked).toHaveLength(speakers.size);
  });

  it('without the sheet every speaker is skipped: plan, run and exit code say so, in one line with the fix', async () => {
    const job = join(dir, 'jobs/no-sheet.yaml');
    writeFileSync(
      job,
      [
        'name: no-sheet',
        'steps:',
        '  - mapping: sessionize',
        '    source: { sessionize: { path: ./cfp-data/sessionize-all.json, timezone: Europe/Berlin } }',
        '',
      ].join('\n'),
    );
    vi.stubEnv('EVSYNC_DATA_DIR', join(dir, 'data-no-sheet'));
    const plan = await runCli('plan', job, '--json');
    const planned = JSON.parse(plan.stdout) as PlanSummary;
    // Every row under its own kind: the speakers are users, their links speakers.
    expect(planned.counts).toEqual({
      user: { skipped: 10 },
      event: { create: 11 },
      speaker: { skipped: 10 },
    });
    expect(planned.losses).toEqual([
      expect.stringMatching(
        /^user: all 10 rows skipped: the export has no e-mail .*speakers: in a job, or --speakers FILE/,
      ),
      expect.stringMatching(/^speaker: all 10 rows skipped: their user is neither synced/),
    ]);

    const run = await runCli('run', job);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^user +0 +0 +0 +0 +0 +10 +0$/m);
    // The events exist on this sandbox from the test above: updated, none lost.
    expect(run.stdout).toMatch(/^event +0 +0 +11 +0 +0 +0 +0$/m);
    expect(run.stdout).toMatch(/^speaker +0 +0 +0 +0 +0 +10 +0$/m);
    expect(run.stdout).toContain('! user: all 10 rows skipped: the export has no e-mail');
    // Decided while the run was sent (a streamed plan cannot know a link's user beforehand).
    expect(run.stdout).toContain(
      '! speaker: all 10 rows skipped: the user or event they need is neither synced in this run nor known from an earlier one',
    );

    const validate = await runCli('validate', job);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain('! user: all 10 rows skipped: the export has no e-mail');
  });
});
