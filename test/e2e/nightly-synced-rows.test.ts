import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace, type SpawnedResult } from '../helpers/built-cli.js';
import { sandboxCounters } from './cli-in-process.js';

/** More rows than the plan looks up key by key (two chunks): the rest meet the synced tails. */
const USERS = 2_600;
const HEADER = 'client_id,email,first_name,last_name,website\n';

function people(change: (i: number, row: string[]) => void = () => undefined): string {
  let text = HEADER;
  for (let i = 1; i <= USERS; i++) {
    // Row 2,500's website is no URL: left out with a warning, every night.
    const row = [
      `u${i}`,
      `u${i}@example.org`,
      `First${i}`,
      `Last${i}`,
      i === 2_500 ? 'not a url' : `https://example.org/u${i}`,
    ];
    change(i, row);
    text += `${row.join(',')}\n`;
  }
  return text;
}

const JOB =
  'name: nightly\nrate: { per_second: 1000, concurrency: 8 }\nsteps:\n  - mapping: users\n    source: { csv: ./people.csv }\n';

// docs/sync-engine.md, "Memory": once the plan has read the synced tails, a row whose params
// are those synced is not checked again. A night of the built CLI past that point: the
// changed row is sent, a row made invalid is checked and refused, the rest send nothing.
describe('a nightly run past the rows looked up one by one (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let night: SpawnedResult;
  let calls: Record<string, number>;

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-nightly-synced-');
    sandbox = await workspace.sandbox();
    workspace.write({ 'people.csv': people(), 'nightly.yaml': JOB });
    const first = await workspace.run(sandbox, ['run', 'nightly.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^user +${USERS} +0 +0 +0 +0 +0 +0$`, 'm'));
    workspace.write({
      'people.csv': people((i, row) => {
        if (i === 2_400) row[3] = 'Renamed';
        if (i === 2_450) row[1] = 'u2450@';
      }),
    });
    const before = (await sandboxCounters(sandbox)).calls;
    night = await workspace.run(sandbox, ['run', 'nightly.yaml', '--report', 'night.json']);
    const after = (await sandboxCounters(sandbox)).calls;
    calls = Object.fromEntries(
      Object.entries(after).flatMap(([call, n]) =>
        n === (before[call] ?? 0) ? [] : [[call, n - (before[call] ?? 0)]],
      ),
    );
  }, 180_000);
  afterAll(async () => {
    await workspace?.close();
  });

  it('sends the changed row alone, and refuses the row made invalid with its reason', () => {
    expect(night.code, night.stdout + night.stderr).toBe(1);
    expect(night.stdout).toMatch(new RegExp(`^user +0 +0 +1 +${USERS - 2} +0 +0 +1$`, 'm'));
    expect(calls).toEqual({ 'PUT /user/member/{id}': 1 });
    const report = JSON.parse(readFileSync(join(workspace.dir, 'night.json'), 'utf8')) as Array<
      Record<string, unknown>
    >;
    expect(report.filter((row) => row.action === 'failed')).toEqual([
      expect.objectContaining({ key: 'u2450', message: expect.stringMatching(/row 2450 .*email.*"u2450@"/) }),
    ]);
  });

  it('leaves every other account as it was', () => {
    const users = new Map(
      sandbox.state.conferenceUsers().flatMap((u) => (u.clientIds[0] ? [[u.clientIds[0], u] as const] : [])),
    );
    expect(users.size).toBe(USERS);
    expect(users.get('u2400')).toMatchObject({
      firstName: 'First2400',
      lastName: 'Renamed',
      email: 'u2400@example.org',
    });
    expect(users.get('u2450')).toMatchObject({ lastName: 'Last2450', email: 'u2450@example.org' });
    for (const [key, user] of users) {
      const i = Number(key?.slice(1));
      if (i === 2_400) continue;
      expect(`${user.firstName} ${user.lastName} ${user.email}`).toBe(`First${i} Last${i} u${i}@example.org`);
    }
  });
});
