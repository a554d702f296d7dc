import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

const HEADER = 'client_id,email,first_name,last_name';
const job = (name: string, file: string, mode: string): string =>
  `name: ${name}\nmode: ${mode}\ndelete_threshold: 100%\nsteps:\n  - { mapping: users, source: { csv: ./${file} } }\n`;

// An attendee who is also a speaker: the attendees job (mirror) keys her `eb-1`, the
// speakers job keys her `sz-1`, and the platform keeps one user per e-mail, so the second
// job attaches its key to her account (203). She then cancels the ticket she no longer
// needs. The build before deleted `eb-1` by its client_id, which took her account out of
// the conference: the speaker was gone, and the speakers job said "unchanged" every night.
describe('a mirror delete of a person another job syncs under its own key', () => {
  const ws = cliWorkspace('evsync-mirror-other-job-');
  afterAll(() => ws.close());

  it('retires the key and leaves the person in the conference', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'attendees.yaml': job('attendees', 'attendees.csv', 'mirror'),
      'speakers.yaml': job('speakers', 'speakers.csv', 'upsert'),
      'attendees.csv': [
        HEADER,
        'eb-1,ada@example.org,Ada,Lovelace',
        'eb-2,bob@example.org,Bob,Byrne',
        'eb-3,cy@example.org,Cy,Clark',
        '',
      ].join('\n'),
      'speakers.csv': [HEADER, 'sz-1,ada@example.org,Ada,Lovelace', ''].join('\n'),
    });
    for (const file of ['attendees.yaml', 'speakers.yaml']) {
      const run = await ws.run(sandbox, ['run', file]);
      expect(run.code, run.stdout + run.stderr).toBe(0);
    }
    expect(conferencePeople(sandbox)).toEqual([
      'eb-1 sz-1 Ada Lovelace ada@example.org',
      'eb-2 Bob Byrne bob@example.org',
      'eb-3 Cy Clark cy@example.org',
    ]);

    // Ada's ticket is cancelled, and Bob leaves: only Bob's account goes.
    ws.write({ 'attendees.csv': [HEADER, 'eb-3,cy@example.org,Cy,Clark', ''].join('\n') });
    const mirror = await ws.run(sandbox, ['run', 'attendees.yaml']);
    expect(mirror.code, mirror.stdout + mirror.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual([
      'eb-1 sz-1 Ada Lovelace ada@example.org',
      'eb-3 Cy Clark cy@example.org',
    ]);
    const report = await ws.run(sandbox, ['report', 'latest', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; action: string; message: string | null }>;
    expect(rows.map((row) => [row.key, row.action]).sort()).toEqual([
      ['eb-1', 'retired'],
      ['eb-2', 'deleted'],
      ['eb-3', 'unchanged'],
    ]);
    expect(rows.find((row) => row.key === 'eb-1')?.message).toMatch(
      /^not deleted: platform user \d+ is also another key's that this run does not remove \(still in the source, or another job's\); the ledger forgets this key$/,
    );

    // The speakers job still has her, and the next night changes nothing.
    const speakers = await ws.run(sandbox, ['run', 'speakers.yaml']);
    expect(speakers.code, speakers.stdout + speakers.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual([
      'eb-1 sz-1 Ada Lovelace ada@example.org',
      'eb-3 Cy Clark cy@example.org',
    ]);
  }, 120_000);
});
