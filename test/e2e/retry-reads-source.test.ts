import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { EVENT_MAPPING } from './conference-fixture.js';

const HEADER = 'client_id,name,description,start,finish,track,sponsor';
const WHEN = '2026-06-01T09:00:00Z,2026-06-01T10:00:00Z,Track 1';
const session = (key: string, name: string, sponsor = 'sp-typo', when = WHEN): string =>
  `${key},${name},About,${when},${sponsor}`;

// The morning after: the platform refused five sessions (their sponsor does not exist), the
// organiser reads why, fixes the export, and retries. The build before sent the sessions as
// the run had planned them: the fixed one failed again with the old sponsor, and one taken
// out of the export was sent all the same.
describe('evsync retry of rows the platform refused', () => {
  const ws = cliWorkspace('evsync-retry-source-');
  afterAll(() => ws.close());

  it('sends each row as the source has it now: fixed, as it was, put back, taken out, now invalid', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: retry-source\nmode: upsert\nsteps:\n  - { mapping: ./events-map.yaml, source: { csv: ./events.csv } }\n',
      'events-map.yaml': EVENT_MAPPING,
      'events.csv': `${HEADER}\n${session('reverted', 'Meetup', '')}\n`,
    });
    const synced = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(synced.code, synced.stdout + synced.stderr).toBe(0);
    ws.write({
      'events.csv': [
        HEADER,
        session('reverted', 'Meetup'),
        session('fixed', 'Keynote'),
        session('same', 'Workshop'),
        session('gone', 'Panel'),
        session('broken', 'Lightning talks'),
        session('fine', 'Closing', ''),
        '',
      ].join('\n'),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const runId = /^Run (\S+) /m.exec(first.stdout)![1]!;
    expect(first.stdout).toContain(`evsync retry ${runId}`);

    ws.write({
      'events.csv': [
        HEADER,
        session('reverted', 'Meetup', ''),
        session('fixed', 'Keynote', ''),
        session('same', 'Workshop'),
        session('broken', 'Lightning talks', 'sp-typo', 'soon,later,Track 1'),
        session('fine', 'Closing', ''),
        '',
      ].join('\n'),
    });
    const retry = await ws.run(sandbox, ['retry', runId]);
    // `same` is refused again, `broken` fails the mapping now: some rows failed.
    expect(retry.code, retry.stdout + retry.stderr).toBe(1);
    const retryId = /^Run (\S+) /m.exec(retry.stdout)![1]!;
    expect(retry.stdout).toContain(`1 row(s) not sent: taken out of the source since`);

    const names = [...sandbox.state.events.values()].map(
      (event) => `${event.clientIds.join(' ')} ${event.name}`,
    );
    expect(names.sort()).toEqual(['fine Closing', 'fixed Keynote', 'reverted Meetup']);

    const report = await ws.run(sandbox, ['report', retryId, '--format', 'json']);
    expect(report.code, report.stderr).toBe(0);
    const rows = JSON.parse(report.stdout) as Array<Record<string, unknown>>;
    const of = (key: string) => rows.find((row) => row.key === key);
    expect(of('fixed')).toMatchObject({ action: 'created' });
    expect(of('same')).toMatchObject({ action: 'failed' });
    expect(of('gone')).toMatchObject({ action: 'skipped', error_code: 'EVSYNC_RETRY_ROW_GONE' });
    expect(String(of('gone')?.message)).toContain('no longer has this row');
    expect(of('broken')).toMatchObject({ action: 'failed' });
    expect(String(of('broken')?.message)).toContain('"soon" is not an XML dateTime');
    expect(of('fine')).toBeUndefined();
    // Put back as it was synced: nothing to send.
    expect(of('reverted')).toMatchObject({ action: 'unchanged' });
  }, 90_000);

  // Rows that failed the mapping are read again by their key. The build before sent the fixed
  // one and said nothing of the one the organiser re-keyed since: no result, exit 0.
  it('says which rows that failed the mapping the source no longer has', async () => {
    const sandbox = await ws.sandbox();
    const people = (...rows: string[]) => ['client_id,email,first_name,last_name', ...rows, ''].join('\n');
    ws.write({
      'people.yaml':
        'name: retry-people\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv': people('r1,r1@example.org,Rua,One', 'r2,r2@,Rex,Two', 'r3,r3@,Rae,Three'),
    });
    const first = await ws.run(sandbox, ['run', 'people.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const runId = /^Run (\S+) /m.exec(first.stdout)![1]!;

    ws.write({
      'people.csv': people('r1,r1@example.org,Rua,One', 'r2,r2@example.org,Rex,Two', 'r3x,r3@,Rae,Three'),
    });
    const retry = await ws.run(sandbox, ['retry', runId]);
    expect(retry.code, retry.stdout + retry.stderr).toBe(0);
    const retryId = /^Run (\S+) /m.exec(retry.stdout)![1]!;
    expect(retry.stdout).toContain('1 row(s) not sent: taken out of the source since');
    const report = await ws.run(sandbox, ['report', retryId, '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((row) => [row.key, row.action, row.error_code ?? null])).toEqual(
      expect.arrayContaining([
        ['r2', 'created', null],
        ['r3', 'skipped', 'EVSYNC_RETRY_ROW_GONE'],
      ]),
    );
    expect(rows).toHaveLength(2);
  }, 90_000);
  // A tester's find: a retry before the fix sends the refused session again and skips its
  // RSVP again, for want of its session; the summary said the RSVP was taken out of the
  // source since, or synced by a later run.
  it('does not call a row skipped for want of data taken out of the source', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'rsvp.yaml': [
        'name: retry-rsvp',
        'mode: upsert',
        'steps:',
        '  - { mapping: users, source: { csv: ./rsvp-people.csv } }',
        '  - { mapping: ./events-map.yaml, source: { csv: ./rsvp-events.csv } }',
        '  - { mapping: rsvps, source: { csv: ./rsvps.csv } }',
        '',
      ].join('\n'),
      'events-map.yaml': EVENT_MAPPING,
      'rsvp-people.csv': 'client_id,email,first_name,last_name\nv1,v1@example.org,Vea,One\n',
      'rsvp-events.csv': `${HEADER}\n${session('refused', 'Keynote')}\n`,
      'rsvps.csv': 'user_client_id,event_client_id\nv1,refused\n',
    });
    const first = await ws.run(sandbox, ['run', 'rsvp.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const runId = /^Run (\S+) /m.exec(first.stdout)![1]!;
    const retry = await ws.run(sandbox, ['retry', runId]);
    expect(retry.code, retry.stdout + retry.stderr).toBe(1);
    expect(retry.stdout).not.toContain('taken out of the source since');
    expect(retry.stdout).toContain('Some rows were skipped because data they need is missing');
  }, 90_000);
});
