import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliWithStdout, type CliResult } from '../../../test/helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-validate-cli-'));
const csv = join(dir, 'people.csv');
const csvText = 'client_id,email,first_name,last_name\nu1,ada@example.org,Ada,Lovelace\n';
writeFileSync(csv, csvText);
const sessionize = readFileSync(
  new URL('../../../test/fixtures/sources/sessionize-messy.json', import.meta.url),
);

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith('/sz.json'))
      response.setHeader('content-type', 'application/json').end(sessionize);
    else response.writeHead(404).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://user:pw@127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** `evsync validate …`: its exit code, and what it printed. */
function validate(...args: string[]): Promise<CliResult> {
  return runCli('validate', ...args);
}

/** `evsync validate` of the good CSV, with standard output written by `stdout`. */
function validateWritingTo(stdout: (chunk: string | Uint8Array) => boolean): Promise<CliResult> {
  return runCliWithStdout(stdout, 'validate', '--source', csv, '--mapping', 'users');
}

/** Standard output that fails with `code` the way a stream does: `write` answers false, then 'error'. */
function failingStdout(code: string, message: string) {
  return (): boolean => {
    const error = Object.assign(new Error(message), { code, syscall: 'write' });
    process.nextTick(() => process.stdout.emit('error', error));
    return false;
  };
}

describe('evsync validate: files the user gave', () => {
  it('says a --source that is a directory is not a file: exit 2', async () => {
    const { code, stderr } = await validate('--source', dir, '--mapping', 'users');
    expect(code).toBe(2);
    expect(stderr).toBe(`evsync: ${dir} is a directory, not a file: give the CSV file's path\n`);
  });

  it('refuses a --report in a folder that does not exist before reading the source: exit 2', async () => {
    const report = join(dir, 'no-such-folder', 'r.csv');
    // The source does not exist either: the report's problem shows first, nothing was read.
    const { code, stderr } = await validate(
      '--source',
      join(dir, 'missing.csv'),
      '--mapping',
      'users',
      '--report',
      report,
    );
    expect(code).toBe(2);
    expect(stderr).toBe(
      `evsync: Cannot write the report ${report}: the folder ${join(dir, 'no-such-folder')} does not exist: create it, or give another path\n`,
    );
  });

  it('refuses a --report that is the source file itself, leaving the source as it was', async () => {
    const { code, stderr } = await validate(
      '--source',
      csv,
      '--mapping',
      'users',
      '--report',
      join(dir, '.', 'people.csv'),
    );
    expect(code).toBe(2);
    expect(stderr).toContain('is the source file itself');
    expect(readFileSync(csv, 'utf8')).toBe(csvText);
  });

  it('answers 2 with a plain message when standard output cannot be written (disk full)', async () => {
    const stdout = failingStdout('ENOSPC', 'ENOSPC: no space left on device, write');
    const { code, stderr } = await validateWritingTo(stdout);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'evsync: cannot write to standard output (ENOSPC: no space left on device, write): free some space or send the output elsewhere\n',
    );
  });

  it('stops quietly when the reader of standard output has gone (| head)', async () => {
    const stdout = failingStdout('EPIPE', 'write EPIPE');
    const { code, stderr } = await validateWritingTo(stdout);
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });
});

describe('evsync validate: secrets in a schedule URL', () => {
  it('redacts the password and the token in the summary and the JSON report', async () => {
    const report = join(dir, 'sz-report.json');
    const url = `${base}/sz.json?token=S3cretTok&lang=en`;
    const { code, stdout, stderr } = await validate(
      '--source',
      url,
      '--mapping',
      'sessionize',
      '--timezone',
      'Europe/Berlin',
      '--report',
      report,
    );
    expect(stderr).toBe('');
    // The export's speakers have no e-mails: skipped for want of one, which is exit 1.
    expect(code).toBe(1);
    const shown = `${base.replace(':pw@', ':[redacted]@')}/sz.json?token=[redacted]&lang=en`;
    expect(stdout).toContain(`← sessionize schedule ${shown}`);
    const lines = JSON.parse(readFileSync(report, 'utf8')) as { source: string }[];
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.source === shown)).toBe(true);
    expect(stdout + readFileSync(report, 'utf8')).not.toMatch(/S3cretTok|:pw@/);
  });

  it('redacts them in an HTTP error: exit 2', async () => {
    const { code, stderr } = await validate(
      '--source',
      `${base}/nope.json?api_key=S3cretTok`,
      '--mapping',
      'sessionize',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('/nope.json?api_key=[redacted] answered HTTP 404');
    expect(stderr).not.toMatch(/S3cretTok|:pw@/);
  });

  it('does not take a URL for a CSV file, and does not echo its secrets', async () => {
    const { code, stderr } = await validate(
      '--source',
      `${base}/people?token=S3cretTok`,
      '--mapping',
      'users',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('a CSV source is a file: download it first');
    expect(stderr).not.toMatch(/S3cretTok|:pw@/);
  });
});
