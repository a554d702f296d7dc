import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

const csv = (...rows: string[]): string => ['client_id,email,first_name,last_name', ...rows, ''].join('\n');

// One person from two steps is one intent whose other keys are aliases, and its update
// writes through each of them. A comp list that reuses its row key (COMP-1 was Bob, now Ann)
// made Ann's merged row update Bob's account through COMP-1: Bob's account became Ann's,
// login e-mail included, "updated", exit 0. The comp step alone was refused already.
describe('a merged person whose other key was another person', () => {
  const ws = cliWorkspace('evsync-merged-alias-');
  afterAll(() => ws.close());

  it('is refused, naming the key, and the account stays its holder’s', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: night\nmode: upsert\nsteps:\n' +
        '  - { name: tickets, mapping: users, source: { csv: ./tickets.csv } }\n' +
        '  - { name: comp, mapping: users, source: { csv: ./comp.csv } }\n',
      'tickets.csv': csv('T-1,cy@example.org,Cy,Clark'),
      'comp.csv': csv('COMP-1,bob@example.org,Bob,Brown'),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);

    ws.write({
      'tickets.csv': csv('T-1,cy@example.org,Cy,Clark', 'T-2,ann@example.org,Ann,Able'),
      'comp.csv': csv('COMP-1,ann@example.org,Ann,Able'),
    });
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual([
      'COMP-1 Bob Brown bob@example.org',
      'T-1 Cy Clark cy@example.org',
    ]);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; error_code: string; message: string }>;
    expect(rows.map((row) => [row.key, row.error_code])).toEqual([['T-2', 'EVSYNC_KEY_NOW_ANOTHER_PERSON']]);
    expect(rows[0]?.message).toContain(
      'client_id "COMP-1" (merged into this row\'s person, client_id "T-2") was "Bob Brown" <bob@example.org> when last synced, and this row makes it "Ann Able" <ann@example.org>',
    );
  }, 90_000);
});
