import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

const csv = (...rows: string[]): string =>
  ['client_id,email,first_name,last_name,company', ...rows, ''].join('\n');

// A reviewing helper's fault: under `on_shared_email: suffix` the first holder of an order's
// e-mail keeps it and the others get plus-addresses. Anna cancelled her ticket, the first;
// Ben's row then came first, plain `anna@…`, and the update of his account to Anna's
// address (her account keeps it in upsert mode) answered 422 on every night. An account
// that holds the plus-address evsync gave its key keeps it.
describe('the first ticket of a shared e-mail cancelled (built CLI)', () => {
  const ws = cliWorkspace('evsync-shared-first-cancelled-');
  afterAll(() => ws.close());

  it('keeps the next holder on the plus-address they were given, night after night', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: night\nsteps:\n  - { mapping: users, source: { csv: ./orders.csv }, on_shared_email: suffix }\n',
      'orders.csv': csv(
        'K-1,anna@order.example,Anna,Alpha,Alpha Co',
        'K-2,anna@order.example,Ben,Beta,Beta Ltd',
        'K-3,anna@order.example,Cem,Gamma,',
      ),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual([
      'K-1 Anna Alpha anna@order.example',
      'K-2 Ben Beta anna+k-2@order.example',
      'K-3 Cem Gamma anna+k-3@order.example',
    ]);

    ws.write({
      'orders.csv': csv('K-2,anna@order.example,Ben,Beta,Beta Ltd', 'K-3,anna@order.example,Cem,Gamma,'),
    });
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^user +0 +0 +1 +1 +0 +0 +0$/m);
    expect(conferencePeople(sandbox)).toEqual([
      'K-1 Anna Alpha anna@order.example',
      'K-2 Ben Beta anna+k-2@order.example',
      'K-3 Cem Gamma anna+k-3@order.example',
    ]);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'updated', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; message: string }>;
    expect(rows.map((row) => row.key)).toEqual(['K-2']);
    expect(rows[0]?.message).toContain('kept anna+k-2@order.example');

    // Nothing changed: nothing sent. Ben's company changes: sent, and he keeps his address.
    const third = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(third.stdout).toMatch(/^user +0 +0 +0 +2 +0 +0 +0$/m);
    ws.write({
      'orders.csv': csv('K-2,anna@order.example,Ben,Beta,Beta GmbH', 'K-3,anna@order.example,Cem,Gamma,'),
    });
    const fourth = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(fourth.code, fourth.stdout + fourth.stderr).toBe(0);
    expect(sandbox.state.userByClientId('K-2')).toMatchObject({
      email: 'anna+k-2@order.example',
      companyName: 'Beta GmbH',
    });
  }, 120_000);

  it('keeps each holder’s address when the export lists the order’s tickets the other way round', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: night\nsteps:\n  - { mapping: users, source: { csv: ./orders.csv }, on_shared_email: suffix }\n',
      'orders.csv': csv('S-1,sian@order.example,Siân,Jones,', 'S-2,sian@order.example,Tom,Hughes,'),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const people = ['S-1 Siân Jones sian@order.example', 'S-2 Tom Hughes sian+s-2@order.example'];
    expect(conferencePeople(sandbox)).toEqual(people);

    // Sorted by surname: Tom's row comes first and plain, Siân's second with a plus-address.
    ws.write({
      'orders.csv': csv('S-2,sian@order.example,Tom,Hughes,', 'S-1,sian@order.example,Siân,Jones,'),
    });
    for (const night of ['resorted', 'unchanged']) {
      const run = await ws.run(sandbox, ['run', 'job.yaml']);
      expect(run.code, `${night}: ${run.stdout}${run.stderr}`).toBe(0);
      expect(conferencePeople(sandbox)).toEqual(people);
    }
    ws.write({
      'orders.csv': csv('S-1,sian@order.example,Siân,Jones,', 'S-2,sian@order.example,Tom,Hughes,'),
    });
    const back = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(back.code, back.stdout + back.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual(people);
  }, 120_000);

  it('gives a new holder sorted first their own plus-address, never the account of the plain one', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: night\nsteps:\n  - { mapping: users, source: { csv: ./orders.csv }, on_shared_email: suffix }\n',
      'orders.csv': csv(
        'J-2,jones@order.example,Anna,Jones,Jones Holdings',
        'J-3,jones@order.example,Tom,Jones,',
      ),
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // A third ticket, Ann's, sorted first: hers is the plain address in the export, and
    // "Ann" passed for a short form of "Anna": the buyer's account became the child's.
    const orders = csv(
      'J-4,jones@order.example,Ann,Jones,Cardiff High',
      'J-2,jones@order.example,Anna,Jones,Jones Holdings',
      'J-3,jones@order.example,Tom,Jones,',
    );
    ws.write({ 'orders.csv': orders });
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const people = [
      'J-2 Anna Jones jones@order.example',
      'J-3 Tom Jones jones+j-3@order.example',
      'J-4 Ann Jones jones+j-4@order.example',
    ];
    expect(conferencePeople(sandbox)).toEqual(people);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'created', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; message: string }>;
    expect(rows.map((row) => row.key)).toEqual(['J-4']);
    expect(rows[0]?.message).toContain('created with jones+j-4@order.example');
    const third = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual(people);
  }, 120_000);

  it('refuses a row of another step joining an account whose key has its own row (merge: false)', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: night\nmerge: { users: false }\nsteps:\n' +
        '  - { name: tickets, mapping: users, source: { csv: ./tickets.csv } }\n' +
        '  - { name: family, mapping: users, source: { csv: ./family.csv } }\n',
      'tickets.csv': csv('M-1,jones@order.example,Anna,Jones,'),
      'family.csv': csv('M-2,jones@order.example,Ann,Jones,Cardiff High'),
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual(['M-1 Anna Jones jones@order.example']);
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ key: string; error_code: string; message: string }>;
    expect(rows.map((row) => [row.key, row.error_code])).toEqual([['M-2', 'EVSYNC_ACCOUNT_OF_ANOTHER']]);
    expect(rows[0]?.message).toContain('is the account of key "M-1", which has its own row in this run');
  }, 120_000);
});
