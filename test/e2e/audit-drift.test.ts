import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../../src/platform/platform-client.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

const USERS = [
  'client_id,email,first_name,last_name,company,position,tags',
  'u1,ada@example.org,Ada,Lovelace,Analytical,Engineer,"math, poetry"',
  'u2,grace@example.org,Grace,Hopper,Navy,Admiral,',
  'u3,linus@example.org,Linus,Torvalds,,,',
  '',
].join('\n');
// Berlin times with an offset: the platform answers them in UTC (§2.4).
const SESSIONS = [
  'client_id,name,description,start,finish,timezone,tags',
  's1,Opening,Welcome to <the> conference.,2027-03-01T09:00,2027-03-01T10:00,Europe/Berlin,keynote',
  's2,Compilers,How &amp; why.,2027-03-01T11:00,2027-03-01T12:00,Europe/Berlin,',
  '',
].join('\n');
const SPEAKERS = ['event_client_id,user_client_id,type', 's1,u1,', 's2,u2,moderator', ''].join('\n');
const PICKS = ['user_client_id,event_client_id', 'u3,s1', ''].join('\n');
const JOB = [
  'name: audited',
  'mode: upsert',
  'rate: { per_second: 500, concurrency: 4 }',
  'steps:',
  '  - { mapping: users, source: { csv: users.csv } }',
  '  - { mapping: events, source: { csv: sessions.csv } }',
  '  - { mapping: speakers, source: { csv: speakers.csv } }',
  '  - { mapping: schedules, source: { csv: picks.csv } }',
  '',
].join('\n');

interface AuditJson {
  summary: Record<string, Record<string, number>>;
  drift: Array<{ kind: string; key: string; type: string; fields: string[]; platform_id: number | null }>;
}

/** Calls other than GET that reached the sandbox since its counters were zeroed. */
function writes(sandbox: RunningSandbox): string[] {
  return Object.keys(sandbox.counters.snapshot().calls).filter((call) => !call.startsWith('GET '));
}

describe('evsync audit (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let admin: PlatformClient;
  const cli = (...args: string[]) => workspace.run(sandbox, args);

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-audit-');
    sandbox = await workspace.sandbox();
    workspace.write({
      'users.csv': USERS,
      'sessions.csv': SESSIONS,
      'speakers.csv': SPEAKERS,
      'picks.csv': PICKS,
      'job.yaml': JOB,
    });
    // The platform's own admin, changing things by hand with signed calls.
    admin = new PlatformClient({
      baseUrl: sandbox.url,
      keyId: sandbox.keyId,
      signingKey: sandbox.signingKey,
    });
  });
  afterAll(async () => {
    await admin.close();
    await workspace.close();
  });

  it('finds nothing after a sync, and only reads', async () => {
    const run = await cli('run', 'job.yaml');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    sandbox.counters.reset();

    const audit = await cli('audit', 'job.yaml');
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    // 3 users, 2 events, 2 speaker links compared; the schedule could not be.
    expect(audit.stdout).toMatch(
      /the 7 rows that could be compared are as the source says; 1 could not be \(schedule: not auditable\)\./,
    );
    expect(audit.stdout).toMatch(/^user +3 +0 +0 +0 +0 +0$/m);
    expect(audit.stdout).toMatch(/^event +2 +0 +0 +0 +0 +0$/m);
    expect(audit.stdout).toMatch(/^speaker +2 +0 +0 +0 +0 +0$/m);
    // Schedules have no read endpoint: named, not passed as in sync.
    expect(audit.stdout).toMatch(/^schedule +0 +0 +0 +0 +0 +1$/m);
    expect(audit.stdout).toMatch(/^Not auditable: schedule/m);
    expect(writes(sandbox)).toEqual([]);
    // Pages of 100: one page of users and an empty one, the same for events.
    expect(sandbox.counters.callsTo('GET', '/user')).toBe(2);
    expect(sandbox.counters.callsTo('GET', '/event')).toBe(2);
  }, 60_000);

  it('names what was changed by hand, reads only, and --repair puts it right', async () => {
    const linus = sandbox.state.userByClientId('u3')!;
    const grace = sandbox.state.userByClientId('u2')!;
    const ada = sandbox.state.userByClientId('u1')!;
    await admin.users.delete(linus.id);
    await admin.events.update(
      { clientId: 's2' },
      { 'event[item_attributes][display_value]': 'Renamed by hand' },
    );
    await admin.speakers.remove({ clientId: 's1' }, { 'speaker[user_id]': String(ada.id) });
    await admin.users.create({
      client_id: 'walk-in-1',
      'user[first_name]': 'Walk',
      'user[last_name]': 'In',
      'user[svc_auth_attributes][email]': 'walkin@example.org',
    });
    sandbox.counters.reset();

    const audit = await cli('audit', 'job.yaml', '--json', '--report', 'drift.csv');
    expect(audit.code, audit.stderr).toBe(1);
    const found = JSON.parse(audit.stdout) as AuditJson;
    expect(found.drift.map(({ kind, key, type, fields }) => ({ kind, key, type, fields }))).toEqual([
      { kind: 'user', key: 'walk-in-1', type: 'extra', fields: [] },
      { kind: 'user', key: 'u3', type: 'missing', fields: [] },
      { kind: 'event', key: 's2', type: 'changed', fields: ['event[item_attributes][display_value]'] },
      { kind: 'speaker', key: 's1/u1', type: 'missing', fields: [] },
    ]);
    expect(found.summary.user).toMatchObject({ in_sync: 2, missing: 1, extra: 1 });
    expect(found.summary.speaker).toMatchObject({ in_sync: 1, missing: 1 });
    expect(writes(sandbox)).toEqual([]);
    const report = readFileSync(join(workspace.dir, 'drift.csv'), 'utf8');
    expect(report.split('\r\n')[0]).toBe('kind,key,type,fields,platform_id,detail');
    expect(report).toContain('event,s2,changed,event[item_attributes][display_value]');

    const repair = await cli('audit', 'job.yaml', '--repair');
    expect(repair.code, repair.stdout + repair.stderr).toBe(0);
    expect(repair.stdout).toMatch(/Repair: sending/);
    expect(sandbox.counters.duplicates()).toEqual({});
    expect(sandbox.state.userByClientId('u3')?.inConference).toBe(true);
    expect(sandbox.state.userByClientId('u3')?.id).toBe(linus.id);
    // Linus's schedule went with him, and came back with him.
    expect(sandbox.state.scheduleOf(linus.id)).toHaveLength(1);
    expect(sandbox.state.eventByClientId('s2')?.name).toBe('Compilers');
    expect(sandbox.state.eventByClientId('s1')?.speakers.map((s) => s.userId)).toEqual([ada.id]);
    expect(sandbox.state.eventByClientId('s2')?.speakers.map((s) => s.userId)).toEqual([grace.id]);
    // The walk-in stays: extras are never deleted.
    expect(sandbox.state.userByClientId('walk-in-1')?.inConference).toBe(true);

    const runs = await cli('runs');
    expect(runs.stdout).toMatch(/^\S+ +audited \(audit repair\) .* completed /m);

    const again = await cli('audit', 'job.yaml');
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/in sync \(1 extra on the platform/);
  }, 90_000);
});
