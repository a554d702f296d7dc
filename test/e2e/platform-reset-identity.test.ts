import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

const HEADER = 'client_id,email,first_name,last_name,company';
const ALICE = 'a-1,alice@example.com,Alice,Anders,AliceCo';
const BOB = 'b-2,bob@example.com,Bob,Brown,BobCo';

// A conference reset (or restored from a backup) gives its platform ids out again: the id the
// ledger holds for a key may be another person's account by then. The build before updated
// by that id and wrote Alice's name and e-mail onto Bob's account, "updated", exit 0.
describe('after the platform forgot its users and gave their ids out again', () => {
  const ws = cliWorkspace('evsync-platform-reset-');
  let sandbox: RunningSandbox | undefined;
  afterAll(async () => {
    await sandbox?.close();
    await ws.close();
  });

  it("a changed row reaches its own person's account, never the account now holding its old id", async () => {
    const started = (port = 0) => startSandbox({ port, keyId: 1, signingKey: 'reset-test-key' });
    sandbox = await started();
    const port = Number(new URL(sandbox.url).port);
    ws.write({
      'job.yaml':
        'name: reset\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv': `${HEADER}\n${ALICE}\n`,
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const aliceId = [...sandbox.state.users.values()].find((u) => u.clientIds.includes('a-1'))?.id;

    // The platform restarts empty at the same address; Bob is created and gets Alice's old id.
    await sandbox.close();
    sandbox = await started(port);
    ws.write({ 'people.csv': `${HEADER}\n${ALICE}\n${BOB}\n` });
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const bob = [...sandbox.state.users.values()].find((u) => u.clientIds.includes('b-2'))!;
    expect(bob.id).toBe(aliceId);

    ws.write({ 'people.csv': `${HEADER}\n${ALICE} Ltd\n${BOB}\n` });
    const third = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual([
      'a-1 Alice Anders alice@example.com',
      'b-2 Bob Brown bob@example.com',
    ]);
  }, 60_000);

  it('is no split of a merged person when users come from two steps', async () => {
    // The id map's stale entry gives Alice's key and Bob's one id: the merge must not take
    // them for a person the sources split (EVSYNC_MERGED_PERSON_SPLIT) and refuse both.
    const started = (port = 0) => startSandbox({ port, keyId: 1, signingKey: 'reset-test-key' });
    await sandbox?.close();
    sandbox = await started();
    const port = Number(new URL(sandbox.url).port);
    ws.write({
      'two.yaml':
        'name: two\nsteps:\n' +
        '  - { name: tickets, mapping: users, source: { csv: ./tickets.csv } }\n' +
        '  - { name: comp, mapping: users, source: { csv: ./comp.csv } }\n',
      'tickets.csv': `${HEADER}\n${ALICE}\n`,
      'comp.csv': `${HEADER}\nc-3,cy@example.com,Cy,Cole,\n`,
    });
    expect((await ws.run(sandbox, ['run', 'two.yaml'])).code).toBe(0);
    await sandbox.close();
    sandbox = await started(port);
    ws.write({ 'tickets.csv': `${HEADER}\n${ALICE}\n${BOB}\n` });
    expect((await ws.run(sandbox, ['run', 'two.yaml'])).code).toBe(0);
    ws.write({ 'tickets.csv': `${HEADER}\n${ALICE} Ltd\n${BOB}\n` });
    const third = await ws.run(sandbox, ['run', 'two.yaml']);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(third.stdout).not.toContain('EVSYNC_MERGED_PERSON_SPLIT');
    // Cy, unchanged since the reset, is not sent again: what a run of the job with --full is for.
    expect(conferencePeople(sandbox)).toEqual([
      'a-1 Alice Anders alice@example.com',
      'b-2 Bob Brown bob@example.com',
    ]);
  }, 60_000);
});
