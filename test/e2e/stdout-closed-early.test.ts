import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnBuiltCli } from '../helpers/built-cli.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

interface Piped {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** What evsync wrote on standard error when it was not piped into the reader too. */
  stderr: string;
  /** What the reader printed: the lines it read before it closed the pipe. */
  read: string;
}

/**
 * `evsync ARGS | head -n LINES` (also `2>&1` with `both`), wired as a shell wires it: evsync's
 * standard output is the write end of the reader's stdin, and nothing else holds that end, so
 * the pipe closes when the reader ends.
 */
async function pipedInto(
  lines: number,
  args: readonly string[],
  cwd: string,
  { both = false } = {},
): Promise<Piped> {
  const reader = spawn('head', ['-n', String(lines)], { stdio: ['pipe', 'pipe', 'ignore'] });
  // Listened for at once: the reader usually ends first.
  const readerClosed = once(reader, 'close');
  let read = '';
  reader.stdout.on('data', (chunk: Buffer) => (read += chunk.toString()));
  const evsync = spawnBuiltCli(args, {
    cwd,
    stdout: reader.stdin,
    ...(both ? { stderr: reader.stdin } : {}),
  });
  // The child has its own copy of the write end: the test's goes, as a shell's does.
  reader.stdin.destroy();
  let stderr = '';
  evsync.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = (await once(evsync, 'close')) as [number | null, NodeJS.Signals | null];
  await readerClosed;
  return { code, signal, stderr, read };
}

describe('evsync writing into a pipe its reader closes early (| head)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-closed-pipe-'));
  afterAll(() => removeWorkspace(dir));
  writeFileSync(
    join(dir, 'people.csv'),
    'client_id,email,first_name,last_name\n' +
      Array.from({ length: 40 }, (_, i) => `u${i},u${i}@example.org,Ann,N${i}\n`).join(''),
  );
  writeFileSync(join(dir, 'bad.csv'), 'client_id,email,first_name,last_name\nu1,nope,Bo,Two\n');

  it('ends quietly after the first line, with the exit code of what it did', async () => {
    // Help is written in two parts: the reader is gone before the second. The build before
    // stopped listening for the pipe's error before it came: an unhandled 'error' event, a
    // stack trace and exit 1. A few times over, since whether the reader ends before the
    // second write is up to the scheduler.
    for (let attempt = 0; attempt < 4; attempt++) {
      const help = await pipedInto(1, ['validate', '--help'], dir);
      expect(help.read).toBe('Usage: evsync validate [options] [job]\n');
      expect([help.code, help.signal, help.stderr]).toEqual([0, null, '']);
    }
    // The validation's own exit status, not the pipe's: 0 every row valid, 1 some invalid.
    const valid = await pipedInto(1, ['validate', '--source', 'people.csv', '--mapping', 'users'], dir);
    expect(valid.read).toMatch(/^users .*← CSV file people\.csv\n$/);
    expect([valid.code, valid.stderr]).toEqual([0, '']);
    const invalid = await pipedInto(1, ['validate', '--source', 'bad.csv', '--mapping', 'users'], dir);
    expect([invalid.code, invalid.stderr]).toEqual([1, '']);
  }, 120_000);

  it('ends quietly when standard error goes into the closed pipe too (2>&1 | head -n 0)', async () => {
    // The file is missing: the message on standard error and the `--json` error on standard
    // output both meet a closed pipe. The build before crashed on standard error's: exit 1.
    const missing = await pipedInto(
      0,
      ['validate', '--source', 'missing.csv', '--mapping', 'users', '--json'],
      dir,
      {
        both: true,
      },
    );
    expect([missing.code, missing.signal, missing.read]).toEqual([2, null, '']);
  }, 60_000);
});
