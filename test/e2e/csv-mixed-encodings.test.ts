import iconv from 'iconv-lite';
import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

// A UTF-8 export, synced; then rows typed on a Windows machine appended in Windows-1252.
// Those bytes outnumber the UTF-8 characters, so the file is guessed to be Windows-1252,
// and the build before read Zoë as "ZoÃ«" and overwrote her correct account, exit 0.
const UTF8 = 'client_id,email,first_name,last_name\nu1,zoe@example.org,Zoë,Smith\n';
const APPENDED = 'u2,rene@example.org,René,Lefèvre\nu3,ana@example.org,Ana,Muñoz\n';

describe('a UTF-8 file with Windows-1252 rows appended', () => {
  const ws = cliWorkspace('evsync-mixed-enc-');
  afterAll(() => ws.close());

  it('fails the UTF-8 row instead of overwriting it with mojibake, and reads the others', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'people.csv': Buffer.from(UTF8, 'utf8'),
      'job.yaml':
        'name: people\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n',
    });
    const first = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(first.code, first.stdout + first.stderr).toBe(0);

    const bytes = Buffer.concat([Buffer.from(UTF8, 'utf8'), iconv.encode(APPENDED, 'windows-1252')]);
    ws.write({ 'people.csv': bytes });
    const second = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual([
      'u1 Zoë Smith zoe@example.org',
      'u2 René Lefèvre rene@example.org',
      'u3 Ana Muñoz ana@example.org',
    ]);

    const report = await ws.run(sandbox, ['report', 'latest', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{ action: string; error_code: string; message: string }>;
    const failed = rows.filter((row) => row.action === 'failed');
    expect(failed.map((row) => row.error_code)).toEqual(['CSV_MIXED_ENCODING']);
    expect(failed[0]?.message).toContain(
      `has a character written in UTF-8 ("ë", bytes 0xC3 0xAB at byte ${bytes.indexOf(0xc3)} of the file) in a file read as Windows-1252`,
    );
    expect(failed[0]?.message).toContain(
      'the file mixes UTF-8 and Windows-1252: save it in one encoding, or set encoding:',
    );
  }, 90_000);
});
