import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { sandboxCounters, stubCliEnv } from './cli-in-process.js';
import { jobYaml, people, usersCsv } from './sync-harness.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

// The registration system gives a person a new id (same e-mail). The upsert finds the
// platform user by e-mail and adds the new client_id; mirror mode must then never delete
// that user for the old key: it retires the key. `evsync plan` and `evsync run` against the
// sandbox, one embedded ledger per test.
describe('mirror mode and a person re-keyed in the source', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  const others = people(3, 'rk');
  const ann = { id: 'old-1', email: 'ann@example.org', first: 'Ann', last: 'Lee' };
  const rekeyed = { ...ann, id: 'new-1' };
  const step = '  - { mapping: users, source: { csv: ./users.csv } }\n';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-rekeyed-'));
    sandbox = await startSandbox();
    writeFileSync(join(dir, 'mirror.yaml'), jobYaml('rk', step, 'mode: mirror\ndelete_threshold: 50%\n'));
    writeFileSync(join(dir, 'upsert.yaml'), jobYaml('rk', step));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await sandbox.close();
    await removeWorkspace(dir);
  });

  const users = (rows: Array<typeof ann>): void => writeFileSync(join(dir, 'users.csv'), usersCsv(rows));
  const deletes = async (): Promise<number> =>
    (await sandboxCounters(sandbox)).calls['DELETE /user/member/{id}'] ?? 0;
  const annOnPlatform = () => sandbox.state.userByEmail('ann@example.org');

  it('a later mirror run retires the old key: the plan says so, and the user stays', async () => {
    sandbox.reset();
    stubCliEnv(sandbox, join(dir, 'later'));
    users([ann, ...others]);
    expect((await runCli('run', join(dir, 'mirror.yaml'))).code).toBe(0);
    const id = annOnPlatform()!.id;

    // The nightly upsert sees the new id: found by e-mail, the new client_id added.
    users([rekeyed, ...others]);
    expect((await runCli('run', join(dir, 'upsert.yaml'))).code).toBe(0);
    expect(annOnPlatform()).toMatchObject({ id, inConference: true });
    expect(annOnPlatform()!.clientIds).toEqual(['old-1', 'new-1']);

    const plan = await runCli('plan', join(dir, 'mirror.yaml'));
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^kind +create +update +delete +retire +unchanged/m);
    expect(plan.stdout).toMatch(/^user +0 +0 +0 +1 +4 /m);
    expect(plan.stdout).toMatch(/retire +user old-1 .*another key of the source/);

    const run = await runCli('run', join(dir, 'mirror.yaml'));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^kind +created +attached +updated +unchanged +deleted +retired +skipped +failed$/m,
    );
    expect(run.stdout).toMatch(/^user +0 +0 +0 +4 +0 +1 +0 +0$/m);
    expect(await deletes()).toBe(0);
    expect(annOnPlatform()).toMatchObject({ id, inConference: true });
    const runId = /^Run (\S+) /.exec(run.stdout)![1]!;
    const report = JSON.parse((await runCli('report', runId, '--format', 'json')).stdout) as Array<{
      key: string;
      action: string;
      message: string | null;
    }>;
    expect(report.find((row) => row.key === 'old-1')).toMatchObject({
      action: 'retired',
      message: expect.stringContaining(`platform user ${id} is also "new-1"`),
    });

    // The ledger forgot the old key: the next run has nothing to retire or delete.
    const again = await runCli('run', join(dir, 'mirror.yaml'));
    expect(again.stdout).toMatch(/^user +0 +0 +0 +4 +0 +0 +0$/m);
    expect(await deletes()).toBe(0);
  }, 180_000);

  it('a mirror run that meets the new key itself keeps the user, and still deletes who left', async () => {
    sandbox.reset();
    stubCliEnv(sandbox, join(dir, 'same-run'));
    users([ann, ...others]);
    expect((await runCli('run', join(dir, 'mirror.yaml'))).code).toBe(0);
    const id = annOnPlatform()!.id;

    users([rekeyed, ...others.slice(1)]);
    const run = await runCli('run', join(dir, 'mirror.yaml'));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^user +0 +0 +1 +2 +1 +1 +0 +0$/m);
    expect(annOnPlatform()).toMatchObject({ id, inConference: true });
    expect(await deletes()).toBe(1);
    expect(sandbox.state.userByEmail('rk1@example.org')?.inConference).toBe(false);
  }, 180_000);
});
