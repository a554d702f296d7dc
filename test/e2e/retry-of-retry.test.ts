import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

const JOB = `name: chain
steps:
  - { mapping: users, source: { csv: ./users.csv } }
  - { mapping: events, source: { csv: ./sessions.csv } }
  - { mapping: speakers, source: { csv: ./speakers.csv } }
  - { mapping: schedules, source: { csv: ./schedules.csv } }
`;
const USERS =
  'client_id,email,first_name,last_name\nu1,ann@example.org,Ann,One\nu2,bob@example.org,Bob,Two\n';
const SESSIONS = (start: string): string =>
  'client_id,name,description,start,finish\n' +
  's1,Talk One,About one,2026-06-01T10:00:00+02:00,2026-06-01T11:00:00+02:00\n' +
  `s2,Talk Two,About two,${start},2026-06-01T13:00:00+02:00\n`;

// A reviewing helper's fault: the night fails a user and a session in the mapping; the
// organiser fixes the user and retries, then fixes the session and retries that retry
// (`evsync retry latest`). The session went, but not its speaker link nor the schedule pick
// the night had sent short of it: the first retry had not carried the dependents of a row
// that still failed, so its retry found none. The built CLI, embedded ledger.
describe('a retry of a retry (built CLI)', () => {
  let ws: CliWorkspace;
  let sandbox: RunningSandbox;
  const runIdOf = (stdout: string): string => /^Run (\S+) /m.exec(stdout)![1]!;

  beforeAll(async () => {
    ws = cliWorkspace('evsync-retry-chain-');
    sandbox = await ws.sandbox();
  });
  afterAll(async () => ws?.close());

  it('sends the speaker link and the schedule pick of a session fixed after the first retry', async () => {
    ws.write({
      'job.yaml': JOB,
      'users.csv': `${USERS}u3,cy@@example.org,Cy,Three\n`,
      'sessions.csv': SESSIONS('next tuesday'),
      'speakers.csv': 'event_client_id,user_client_id,type\ns1,u1,speaker\ns2,u2,speaker\n',
      'schedules.csv': 'user_client_id,event_client_id\nu1,s1\nu1,s2\n',
    });
    const night = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(night.code, night.stdout + night.stderr).toBe(1);

    ws.write({ 'users.csv': `${USERS}u3,cy@example.org,Cy,Three\n` });
    const first = await ws.run(sandbox, ['retry', 'latest']);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    expect(sandbox.state.userByClientId('u3')).toBeDefined();

    ws.write({ 'sessions.csv': SESSIONS('2026-06-01T12:00:00+02:00') });
    const second = await ws.run(sandbox, ['retry', 'latest']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(runIdOf(second.stdout)).not.toBe(runIdOf(first.stdout));

    const { state } = sandbox;
    const s2 = [...state.events.values()].find((event) => event.clientIds.includes('s2'))!;
    expect(s2.speakers.map((speaker) => speaker.userId)).toEqual([state.userByClientId('u2')!.id]);
    expect(state.scheduleOf(state.userByClientId('u1')!.id)).toContain(s2.id);
    const plan = await ws.run(sandbox, ['plan', 'job.yaml']);
    expect(plan.stdout).not.toMatch(/^\s*(create|update) (speaker|schedule)/m);
  });
});
