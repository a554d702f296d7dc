import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';

// pretix's check-in list writes a product with a variation as `str(item) + " – " + variation`
// (src/pretix/plugins/checkinlists/exporters.py). The shipped table matched whole cells
// only: the speaker and the press ticket below became `member`, exit 0, without a word.
const HEADER = '"Order code","Attendee name","Product","Price","Checked in","Secret","E-mail","Company"';
const row = (order: string, name: string, product: string, secret: string, email: string): string =>
  `"${order}","${name}","${product}","50.00","","${secret}","${email}",""`;

describe('pretix check-in list products with a variation', () => {
  const ws = cliWorkspace('evsync-pretix-variations-');
  afterAll(() => ws.close());

  it('map by their product, and a product the table lacks is named', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': 'name: checkin\nsteps:\n  - { mapping: pretix-checkin, source: { csv: ./checkin.csv } }\n',
      'checkin.csv': [
        HEADER,
        row('A1B2C', 'Ada Lovelace', 'Speaker Ticket – Two days', 's1', 'ada@example.org'),
        row('D3E4F', 'Nellie Bly', 'Press – Online', 's2', 'nellie@example.org'),
        row('G5H6J', 'Grace Hopper', 'Speaker Ticket', 's3', 'grace@example.org'),
        row('K7L8M', 'Alan Turing', 'Conference Ticket – Student', 's4', 'alan@example.org'),
        '',
      ].join('\n'),
    });
    const validate = await ws.run(sandbox, ['validate', 'job.yaml']);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const note =
      `Product: 1 row has a value not in the mapping's lookup table, given its default "member": ` +
      `"Conference Ticket – Student" (1 row). Add to the table each value that means something else`;
    expect(validate.stdout).toContain(`note: ${note}`);

    const run = await ws.run(sandbox, ['run', 'job.yaml'], { LOG_LEVEL: 'info' });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // `run` and `plan` log it with how the sources were read (JSON lines here).
    const logged = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(logged.some((msg) => msg.includes(note))).toBe(true);
    const memberships = sandbox.state
      .conferenceUsers()
      .map((user) => `${user.email} ${user.membership}`)
      .sort();
    expect(memberships).toEqual([
      'ada@example.org speaker',
      'alan@example.org member',
      'grace@example.org speaker',
      'nellie@example.org press',
    ]);
  }, 90_000);
});
