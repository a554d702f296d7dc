import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { sandboxCounters, stubCliEnv } from './cli-in-process.js';
import { jobYaml } from './sync-harness.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const USER_COLUMNS =
  'client_id,email,first_name,last_name,salutation,membership,company,position,bio,tags,website,phone_work,custom_data,street,street2,city,country_code';
const EVENT_COLUMNS = 'client_id,name,description,start,finish,track,location,tags,max_attendees';
const WHEN = '2026-06-01T09:00:00Z,2026-06-01T10:00:00Z';

// A field the registration export empties must be emptied on the platform by the next
// run, in the form the spec clears it with; what the platform cannot clear is said in the
// row's result. `evsync run` and `evsync report` against the sandbox.
describe('fields cleared in the source', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-cleared-'));
    sandbox = await startSandbox();
    stubCliEnv(sandbox, join(dir, 'data'));
    writeFileSync(
      join(dir, 'job.yaml'),
      jobYaml(
        'clears',
        '  - { mapping: users, source: { csv: ./users.csv } }\n  - { mapping: events, source: { csv: ./events.csv } }\n',
      ),
    );
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await sandbox.close();
    await removeWorkspace(dir);
  });

  const write = (users: string, events: string): void => {
    writeFileSync(join(dir, 'users.csv'), `${USER_COLUMNS}\n${users}\n`);
    writeFileSync(join(dir, 'events.csv'), `${EVENT_COLUMNS}\n${events}\n`);
  };

  it('clears on the next update what the source emptied, and says what the platform cannot clear', async () => {
    write(
      'cl-1,ann@example.org,Ann,Lee,Dr.,speaker,Acme,CTO,Writes code.,"ai,ml",https://ann.example.org,+4930123,"{""a"":1}",Main St 1,Floor 2,Berlin,DE',
      `cl-e1,Talk,About,${WHEN},Main track,Hall A,"x,y",50`,
    );
    const first = await runCli('run', join(dir, 'job.yaml'));
    expect(first.code).toBe(0);
    const user = sandbox.state.userByClientId('cl-1')!;
    expect(user).toMatchObject({
      companyName: 'Acme',
      position: 'CTO',
      salutation: 'Dr.',
      membership: 'speaker',
    });
    expect(user.bio).toContain('Writes code.');
    expect(user.phones).toHaveLength(1);
    expect(user.addresses).toEqual([expect.objectContaining({ street2: 'Floor 2', city: 'Berlin' })]);
    const event = sandbox.state.eventByClientId('cl-e1')!;
    expect(event.trackId).not.toBeNull();
    expect(event.locationId).not.toBeNull();

    // Emptied: everything but the names, the e-mail and the address's street and city.
    write('cl-1,ann@example.org,Ann,Lee,,,,,,,,,,Main St 1,,Berlin,DE', `cl-e1,Talk,About,${WHEN},,,,`);
    const plan = await runCli('plan', join(dir, 'job.yaml'));
    expect(plan.stdout).toMatch(
      /update +user cl-1 .*\n +clears \(empty in the source\): .*user\[employee_attributes\]\[position\]/,
    );
    const second = await runCli('run', join(dir, 'job.yaml'));
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^user +0 +0 +1 +0 /m);
    expect(second.stdout).toMatch(/^event +0 +0 +1 +0 /m);
    const cleared = sandbox.state.userByClientId('cl-1')!;
    expect(cleared).toMatchObject({
      companyName: null,
      position: null,
      salutation: null,
      membership: 'member',
      bio: null,
      tags: [],
      webLinks: {},
      phones: [],
      customData: {},
    });
    expect(cleared.addresses).toEqual([
      expect.objectContaining({ street: 'Main St 1', street2: null, city: 'Berlin' }),
    ]);
    expect(sandbox.state.eventByClientId('cl-e1')).toMatchObject({
      trackId: null,
      locationId: null,
      tags: [],
      maxAttendees: null,
    });
    const runId = /^Run (\S+) /.exec(second.stdout)![1]!;
    const rows = JSON.parse((await runCli('report', runId, '--format', 'json')).stdout) as Array<{
      key: string;
      message: string | null;
    }>;
    expect(rows.find((r) => r.key === 'cl-1')?.message).toMatch(
      /^cleared \(empty in the source\): .*user\[employee_attributes\]\[position\]/,
    );
    expect(rows.find((r) => r.key === 'cl-e1')?.message).toMatch(/cleared .*event\[track_name\]/);

    // The whole address emptied: the platform has no way to remove it, and the row says so.
    write('cl-1,ann@example.org,Ann,Lee,,,,,,,,,,,,,', `cl-e1,Talk,About,${WHEN},,,,`);
    const third = await runCli('run', join(dir, 'job.yaml'));
    expect(third.code).toBe(0);
    const thirdId = /^Run (\S+) /.exec(third.stdout)![1]!;
    const third_rows = JSON.parse((await runCli('report', thirdId, '--format', 'json')).stdout) as Array<{
      key: string;
      action: string;
      message: string | null;
    }>;
    expect(third_rows.find((r) => r.key === 'cl-1')).toMatchObject({
      action: 'updated',
      message: expect.stringMatching(
        /addresses_attributes\]\[0\]\[city\] is empty in the source but stays on the platform: an address cannot be removed/,
      ),
    });
    expect(sandbox.state.userByClientId('cl-1')!.addresses).toHaveLength(1);

    // Nothing left to clear: the next run sends nothing.
    const before = sentBesidesChecks(await sandboxCounters(sandbox));
    const fourth = await runCli('run', join(dir, 'job.yaml'));
    expect(fourth.stdout).toMatch(/^user +0 +0 +0 +1 /m);
    expect(sentBesidesChecks(await sandboxCounters(sandbox))).toBe(before);
  }, 180_000);
});
