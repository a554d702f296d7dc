import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { TWO_SESSIONS } from './conference-fixture.js';

const PEOPLE = ['client_id,email,first_name,last_name', 'u1,ada@example.org,Ada,Lovelace', ''].join('\n');

// A job of RSVPs alone: the platform gives no read for them. The build before printed
// "Audit of picks: the platform is as the source says.", exit 0, having compared nothing.
describe('evsync audit of rows the platform cannot be read back for (built CLI)', () => {
  const ws = cliWorkspace('evsync-audit-not-auditable-');
  afterAll(() => ws.close());

  it('says nothing could be compared, or which part could', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'program.yaml': [
        'name: program',
        'mode: upsert',
        'steps:',
        '  - { mapping: users, source: { csv: ./people.csv } }',
        '  - { mapping: events, source: { csv: ./events.csv } }',
        '',
      ].join('\n'),
      'picks.yaml':
        'name: picks\nmode: upsert\nsteps:\n  - { mapping: rsvps, source: { csv: ./rsvps.csv } }\n',
      'both.yaml': [
        'name: both',
        'mode: upsert',
        'steps:',
        '  - { mapping: users, source: { csv: ./people.csv } }',
        '  - { mapping: rsvps, source: { csv: ./rsvps.csv } }',
        '',
      ].join('\n'),
      'people.csv': PEOPLE,
      'events.csv': TWO_SESSIONS,
      'rsvps.csv': 'user_client_id,event_client_id\nu1,s1\nu1,s2\n',
    });
    for (const job of ['program.yaml', 'picks.yaml']) {
      const run = await ws.run(sandbox, ['run', job]);
      expect(run.code, run.stdout + run.stderr).toBe(0);
    }

    const picks = await ws.run(sandbox, ['audit', 'picks.yaml']);
    // Nothing differs: no drift, exit 0 (docs/audit.md), but not called in sync either.
    expect(picks.code, picks.stdout + picks.stderr).toBe(0);
    expect(picks.stdout).toMatch(
      /^Audit of picks: nothing could be compared: 2 rows are of kinds the platform cannot be read back for \(rsvp\)\.$/m,
    );
    expect(picks.stdout).not.toContain('as the source says');

    const both = await ws.run(sandbox, ['audit', 'both.yaml']);
    expect(both.code, both.stdout + both.stderr).toBe(0);
    expect(both.stdout).toMatch(
      /^Audit of both: the 1 row that could be compared is as the source says; 2 could not be \(rsvp: not auditable\)\.$/m,
    );
  }, 120_000);
});
