import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWorkspace, runBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';

/** Writes `parts` to a file in the workspace with backpressure: a big line stays out of memory. */
async function writeParts(path: string, parts: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const part of parts)
    if (!out.write(part)) await new Promise<void>((done) => out.once('drain', () => done()));
  await new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done())));
}

function* users(from: number, to: number, newline: string): Generator<string> {
  for (let i = from; i <= to; i++) yield `u${i},u${i}@example.org,Ada${i},Lovelace${newline}`;
}

describe('CSV line ends and record limits, through the built CLI (issue #41 items 5, 6)', () => {
  let workspace: CliWorkspace;
  beforeAll(() => {
    workspace = cliWorkspace('evsync-csv-limits-');
  });
  afterAll(async () => workspace.close());

  const validate = (file: string): ReturnType<typeof runBuiltCli> =>
    runBuiltCli(['validate', '--source', file, '--mapping', 'users'], { cwd: workspace.dir });

  it('reads all 20,000 rows of two exports put end to end, one with CRLF and one with CR', async () => {
    await writeParts(join(workspace.dir, 'mixed.csv'), [
      'client_id,email,first_name,last_name\r\n',
      ...users(1, 10_000, '\r\n'),
      ...users(10_001, 20_000, '\r'),
    ]);
    const result = await validate('mixed.csv');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/rows read\s+20,000/);
    expect(result.stdout).toMatch(/invalid\s+0/);
  }, 60_000);

  it('refuses a 20 MB line at once as one row, and reads the rows after it', async () => {
    await writeParts(join(workspace.dir, 'long.csv'), [
      'client_id,email,first_name,last_name\n',
      'u1,u1@example.org,Ada,Lovelace\n',
      'u2,u2@example.org,Ada,',
      ...Array.from({ length: 20 }, () => 'B'.repeat(1 << 20)),
      '\n',
      'u3,u3@example.org,Grace,Hopper\n',
    ]);
    const result = await validate('long.csv');
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/rows read\s+3/);
    expect(result.stdout).toMatch(/valid\s+2/);
    expect(result.stdout).toMatch(
      /CSV_RECORD_TOO_LONG: 1 row\s+row 2 \(line 3\): is longer than 1,048,576 characters on one line/,
    );
  }, 60_000);

  it('stops at once on a file without a line break, naming the limit', async () => {
    await writeParts(
      join(workspace.dir, 'noline.csv'),
      Array.from({ length: 20 }, () => 'a'.repeat(1 << 20)),
    );
    const result = await validate('noline.csv');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/the header is longer than 1,048,576 characters without a line break/);
  }, 60_000);
});
