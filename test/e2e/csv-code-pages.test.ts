import iconv from 'iconv-lite';
import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';
import { conferencePeople } from './conference-fixture.js';

// What Excel on Windows set to Polish writes for "CSV": Windows-1250, no BOM. Synthetic
// people under the users mapping's header.
const HEADER = 'client_id,email,first_name,last_name\n';
const POLISH = `${HEADER}pl-1,lukasz@example.org,Łukasz,Wąs\npl-2,zofia@example.org,Zofia,Łaźniak\n`;

describe('a CSV in a code page a guess cannot tell from Windows-1252', () => {
  const ws = cliWorkspace('evsync-code-pages-');
  afterAll(() => ws.close());

  it('is said by validate, and lands right with encoding: windows-1250 (cp1250 too)', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'pl.csv': iconv.encode(POLISH, 'windows-1250'),
      'guess.yaml': 'name: guess\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./pl.csv } }\n',
      'pl.yaml':
        'name: pl\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: { path: ./pl.csv, encoding: CP1250 } } }\n',
    });
    const guessed = await ws.run(sandbox, ['validate', 'guess.yaml']);
    expect(guessed.stdout).toContain(
      'bytes read as £ ¥ ³ ¹ Ÿ beside letters, where Windows-1250 (Central European) has Ł Ą ł ą ź: if Polish or Czech names look wrong, set encoding: windows-1250',
    );

    const run = await ws.run(sandbox, ['run', 'pl.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(conferencePeople(sandbox)).toEqual([
      'pl-1 Łukasz Wąs lukasz@example.org',
      'pl-2 Zofia Łaźniak zofia@example.org',
    ]);
  }, 60_000);

  it('a byte Windows-1252 leaves undefined fails its row, instead of sending a name with "�"', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      // 佐藤 in Shift_JIS holds 0x8D; さくら 田中 has no such byte and reads as signs.
      'ja.csv': iconv.encode(`${HEADER}ja-1,sato@example.org,カナ,佐藤\n`, 'shift_jis'),
      'ja.yaml': 'name: ja\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./ja.csv } }\n',
    });
    const run = await ws.run(sandbox, ['run', 'ja.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(conferencePeople(sandbox)).toEqual([]);
    const report = await ws.run(sandbox, ['report', 'latest', '--format', 'json']);
    const [row] = JSON.parse(report.stdout) as Array<{ error_code: string; message: string }>;
    expect(row?.error_code).toBe('CSV_UNDEFINED_BYTE');
    expect(row?.message).toMatch(
      /has a byte that Windows-1252 does not define \(0x8D at byte \d+ of the file\)/,
    );
  }, 60_000);
});
