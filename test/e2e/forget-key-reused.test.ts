import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

const csv = (...rows: string[]): string => ['client_id,email,first_name,last_name', ...rows, ''].join('\n');

// A list keyed by the rows' order (`QWE-1`, `QWE-2`) gives an erased person's key to the
// next person. The build before suppressed Zoe's row as the erased Amy ("skipped", exit 0)
// every night: Zoe never got an account, and the report kept nothing to find her by.
describe('an erased person’s client_id given to a row with another e-mail', () => {
  const ws = cliWorkspace('evsync-forget-key-reused-');
  afterAll(() => ws.close());

  it('fails the row, keeping nothing of it but its place, and exits 1', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': 'name: list\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
      'people.csv': csv('QWE-1,amy@example.org,Amy,Able', 'QWE-2,cy@example.org,Cy,Clark'),
    });
    expect((await ws.run(sandbox, ['run', 'job.yaml'])).code).toBe(0);
    const forget = await ws.run(sandbox, ['forget', '--email', 'amy@example.org', '--job', 'job.yaml']);
    expect(forget.code, forget.stdout + forget.stderr).toBe(0);

    // Amy's row still there: suppressed, as before. Zoe under Amy's old key: stopped.
    ws.write({
      'people.csv': csv(
        'QWE-1,zoe@example.org,Zoe,Zed',
        'QWE-2,cy@example.org,Cy,Clark',
        'QWE-3,amy@example.org,Amy,Able',
      ),
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual(['QWE-2 Cy Clark cy@example.org']);

    const report = await ws.run(sandbox, ['report', 'latest', '--format', 'json']);
    expect(report.stdout).not.toMatch(/zoe|amy|QWE-1|QWE-3/i);
    const rows = JSON.parse(report.stdout) as Array<{
      action: string;
      error_code: string | null;
      message: string;
      row?: number;
    }>;
    expect(rows.map((row) => [row.action, row.error_code]).sort()).toEqual([
      ['failed', 'EVSYNC_ERASED_KEY_REUSED'],
      ['skipped', 'EVSYNC_ERASED'],
      ['unchanged', null],
    ]);
    expect(rows.find((row) => row.action === 'failed')?.message).toMatch(
      /^not sent: this row’s client_id is the key of a person erased in this conference \(evsync forget\), and the row gives another e-mail/,
    );
  }, 90_000);
});
