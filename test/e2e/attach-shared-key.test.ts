import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';

// A 203 attaches the platform-wide user with the row's e-mail or its client_id. Attached by
// the client_id alone, it is another conference's person under the same key: the build before
// wrote Paula's name and e-mail onto Quentin's account, "attached", exit 0.
describe('a create attached (203) to a platform-wide user', () => {
  const ws = cliWorkspace('evsync-attach-shared-key-');
  afterAll(() => ws.close());

  it("never renames another conference's person who holds the same client_id; the row's own login is updated", async () => {
    const sandbox = await ws.sandbox({
      seed: {
        users: [
          { first_name: 'Quentin', last_name: 'Quill', email: 'quentin@example.org', client_ids: ['p3'] },
          { first_name: 'Robin', last_name: 'Reyes', email: 'robin@example.org' },
        ],
      },
    });
    ws.write({
      'job.yaml':
        'name: attach\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv':
        'client_id,email,first_name,last_name,company\n' +
        'p3,paula@example.org,Paula,Pike,PikeCo\n' +
        // The same login under another name: the person's own account, attached by e-mail.
        'r1,robin@example.org,Robin,Reyes-Ortiz,RobinCo\n',
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml', '--report', 'report.json']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const report = JSON.parse(readFileSync(join(ws.dir, 'report.json'), 'utf8')) as Array<
      Record<string, unknown>
    >;
    expect(report.find((row) => row.key === 'p3')).toMatchObject({
      action: 'failed',
      error_code: 'EVSYNC_ACCOUNT_OF_ANOTHER',
    });
    expect(report.find((row) => row.key === 'r1')).toMatchObject({ action: 'attached' });
    const users = [...sandbox.state.users.values()].map(
      (u) => `${u.clientIds.join(' ')} ${u.firstName} ${u.lastName} ${u.email}`,
    );
    expect(users).toContain('p3 Quentin Quill quentin@example.org');
    expect(users).toContain('r1 Robin Reyes-Ortiz robin@example.org');
    expect(users.join('\n')).not.toContain('Paula');
  }, 60_000);
});
