import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { stubCliEnv } from './cli-in-process.js';
import { jobYaml } from './sync-harness.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const SPECTRUM = '/work/shared/fixtures/csv-spectrum';
const HEADER = 'client_id,email,first_name,last_name\n';

/** `count` users named in UTF-8 (`Müller`, `日本`), with the bytes of row `bad` replaced by `badRow`. */
function usersCsv(prefix: string, count: number, bad?: { row: number; bytes: Buffer }): Buffer {
  const parts: Buffer[] = [Buffer.from(HEADER)];
  for (let i = 1; i <= count; i++) {
    parts.push(
      i === bad?.row
        ? bad.bytes
        : Buffer.from(`${prefix}${i},${prefix}${i}@example.org,Jürgen ${i},Müller 日本\n`, 'utf8'),
    );
  }
  return Buffer.concat(parts);
}

/** One row whose first name has the Latin-1 byte of `é` (0xE9) where UTF-8 would have two bytes. */
function latin1Row(prefix: string, i: number): Buffer {
  return Buffer.concat([
    Buffer.from(`${prefix}${i},${prefix}${i}@example.org,Ren`),
    Buffer.from([0xe9]),
    Buffer.from(`e ${i},Müller 日本\n`, 'utf8'),
  ]);
}

describe('CSV encodings through the CLI', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-csv-encodings-'));
    sandbox = await startSandbox();
    stubCliEnv(sandbox, join(dir, 'data'));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await sandbox.close();
    await removeWorkspace(dir);
  });

  const job = (name: string, csv: string, source = `{ csv: ./${csv} }`): string => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, jobYaml(name, `  - { mapping: users, source: ${source} }\n`));
    return file;
  };

  it('one Latin-1 byte in a UTF-8 file: that row is reported with line and byte, the rest stay UTF-8', async () => {
    const bytes = usersCsv('enc', 200, { row: 150, bytes: latin1Row('enc', 150) });
    writeFileSync(join(dir, 'stray.csv'), bytes);
    const file = job('stray', 'stray.csv');

    const validate = await runCli('validate', file);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(/^ +valid +199$/m);
    expect(validate.stdout).toMatch(/^ +invalid +1$/m);
    const offset = bytes.indexOf(0xe9);
    expect(validate.stdout).toContain(
      `row 150 (line 151): has a byte that is not UTF-8 (0xE9 at byte ${offset.toLocaleString('en')} of the file)`,
    );
    expect(validate.stdout).toMatch(
      /note: read as UTF-8 \(guessed\): the file has 799 UTF-8 characters and 1 byte that is not UTF-8/,
    );

    const run = await runCli('run', file);
    expect(run.code).toBe(1);
    expect(sandbox.state.userByClientId('enc1')?.lastName).toBe('Müller 日本');
    expect(sandbox.state.userByClientId('enc200')?.firstName).toBe('Jürgen 200');
    expect(sandbox.state.userByClientId('enc150')).toBeUndefined();
  });

  it('a stray byte after the sample that decided UTF-8 is its row’s problem, not a switch of encoding', async () => {
    // 2,000 rows are about 110 KB: the bad byte comes after the 64 KB sample.
    writeFileSync(
      join(dir, 'late.csv'),
      usersCsv('late', 2000, { row: 1900, bytes: latin1Row('late', 1900) }),
    );
    const result = await runCli('validate', job('late', 'late.csv'));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^ +valid +1,999$/m);
    expect(result.stdout).toMatch(
      /row 1900 \(line 1901\): has a byte that is not UTF-8 \(0xE9 at byte [\d,]+ of the file\)/,
    );
  });

  it('a plain ASCII file whose first byte above 127 comes late and is Windows-1252: said, and read so', async () => {
    const ascii = Array.from({ length: 2000 }, (_, i) => `asc${i},asc${i}@example.org,Ann ${i},Lee`).join(
      '\n',
    );
    const latin = Buffer.from('\nascz,ascz@example.org,Ren\xe9e,M\xfcller\n', 'latin1');
    writeFileSync(join(dir, 'ascii.csv'), Buffer.concat([Buffer.from(HEADER + ascii), latin]));
    const result = await runCli('validate', job('ascii', 'ascii.csv'));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ +valid +2,001$/m);
    expect(result.stdout).toMatch(/note: read as UTF-8: the first 64 KB have no byte above 127/);
    expect(result.stdout).toMatch(
      /note: from byte [\d,]+ on, the first byte above 127, read as Windows-1252/,
    );
  });

  it('a Windows-1252 file is said to be one, and encoding: forces another', async () => {
    writeFileSync(
      join(dir, 'cp.csv'),
      Buffer.from(`${HEADER}cp1,cp1@example.org,Ren\xe9e,M\xfcller\n`, 'latin1'),
    );
    const guessed = await runCli('validate', job('cp', 'cp.csv'));
    expect(guessed.code).toBe(0);
    expect(guessed.stdout).toMatch(
      /note: read as Windows-1252 \(guessed\): the file has 0 UTF-8 characters and 2 bytes that are not UTF-8/,
    );

    const forced = await runCli(
      'validate',
      job('cpforced', 'cp.csv', '{ csv: { path: ./cp.csv, encoding: utf-8 } }'),
    );
    expect(forced.code).toBe(1);
    expect(forced.stdout).toMatch(
      /row 1 \(line 2\): has 2 bytes that are not UTF-8 \(the first, 0xE9 at byte \d+/,
    );
    expect(forced.stdout).not.toMatch(/note: read as/);
  });

  it('an unknown encoding: is a usage error naming the values', async () => {
    writeFileSync(join(dir, 'k.csv'), `${HEADER}k1,k1@example.org,A,B\n`);
    const result = await runCli(
      'validate',
      job('klingon', 'k.csv', '{ csv: { path: ./k.csv, encoding: klingon } }'),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/encoding/);
    expect(result.stderr).toMatch(/windows-1252/);
  });

  it('Excel "Unicode text" (UTF-16LE) and a UTF-8 BOM are read as their byte-order mark says, and said', async () => {
    copyFileSync(join(SPECTRUM, 'node-csv-365-utf16le-bom-windows.csv'), join(dir, 'u16.csv'));
    copyFileSync(join(SPECTRUM, 'node-csv-365-utf8-bom-windows.csv'), join(dir, 'u8bom.csv'));
    for (const [name, encoding] of [
      ['u16', 'UTF-16LE'],
      ['u8bom', 'UTF-8'],
    ] as const) {
      const result = await runCli(
        'validate',
        '--source',
        join(dir, `${name}.csv`),
        '--mapping',
        'users',
        '--json',
      );
      const [step] = (JSON.parse(result.stdout) as { steps: { notes: string[]; rowsRead: number }[] }).steps;
      expect(step!.rowsRead).toBe(1);
      expect(step!.notes).toEqual([`read as ${encoding}: the file starts with its byte-order mark`]);
    }
  });
});
