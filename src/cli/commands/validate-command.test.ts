import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../main.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-validate-'));
const csv = join(dir, 'people.csv');
writeFileSync(
  csv,
  [
    'client_id,email,first_name,last_name',
    'u1,ada@example.org,Ada,Lovelace',
    'u2,bob@,Bob,',
    '=cmd,carol@example.org,Carol,Shaw',
    '=cmd,dan@example.org,Dan,Shaw',
    '',
  ].join('\n'),
);

let out = '';
let err = '';
beforeEach(() => {
  out = '';
  err = '';
  process.exitCode = undefined;
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

describe('evsync validate', () => {
  it('prints a summary grouped by problem, writes a CSV report, exits 1 when rows are invalid', async () => {
    const report = join(dir, 'report.csv');
    const code = await main([
      'node',
      'evsync',
      'validate',
      '--source',
      csv,
      '--mapping',
      'users',
      '--report',
      report,
    ]);
    expect(code).toBe(1);
    expect(out).toMatch(/rows read\s+4/);
    expect(out).toMatch(/valid\s+2/);
    expect(out).toMatch(/invalid\s+2/);
    expect(out).toContain('INVALID_EMAIL in email: 1 row');
    expect(out).toContain('row 2 (line 3), email: "bob@" is not an e-mail address');
    const lines = readFileSync(report, 'utf8').trim().split('\r\n');
    expect(lines[0]).toBe('mapping,source,row,line,status,field,param,code,message');
    expect(lines.some((line) => line.includes(',INVALID_EMAIL,'))).toBe(true);
    // The duplicate's key starts with "=": a spreadsheet must not run it as a formula.
    expect(lines.join('\n')).not.toMatch(/(^|,)=cmd/);
  });

  it('writes a JSON report and exits 0 when every row is valid', async () => {
    const good = join(dir, 'good.csv');
    writeFileSync(good, 'client_id,email,first_name,last_name\nu1,ada@example.org,Ada,Lovelace\n');
    const report = join(dir, 'report.json');
    const code = await main([
      'node',
      'evsync',
      'validate',
      '--source',
      good,
      '--mapping',
      'users',
      '--report',
      report,
      '--json',
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual([]);
    expect(JSON.parse(out)).toEqual({
      steps: [expect.objectContaining({ mapping: 'users', rowsRead: 1, rowsValid: 1, intents: { user: 1 } })],
      danglingLinks: [],
    });
  });

  it('warns of a source that yields no rows, in the summary and in --json, as run does', async () => {
    const job = join(dir, 'empty-job.yaml');
    writeFileSync(join(dir, 'empty.csv'), 'client_id,email,first_name,last_name\n');
    writeFileSync(join(dir, 'one.csv'), 'client_id,email,first_name,last_name\nu1,ada@example.org,Ada,L\n');
    writeFileSync(
      job,
      'name: empty\nsteps:\n  - mapping: users\n    source: { csv: empty.csv }\n  - mapping: users\n    source: { csv: one.csv }\n',
    );
    // A warning, not a failed row: the exit code stays 0.
    expect(await main(['node', 'evsync', 'validate', job])).toBe(0);
    expect(out).toMatch(/rows read\s+0\n[\s\S]*\n\n {2}! CSV file empty\.csv yielded no rows\n/);
    expect(out.match(/yielded no rows/g)).toHaveLength(1);

    out = '';
    expect(await main(['node', 'evsync', 'validate', job, '--json'])).toBe(0);
    const [empty, one] = (JSON.parse(out) as { steps: Array<{ warnings: string[] }> }).steps;
    expect(empty!.warnings).toEqual(['CSV file empty.csv yielded no rows']);
    expect(one!.warnings).toEqual([]);
  });

  it('validates every step of a job file', async () => {
    const job = join(dir, 'job.yaml');
    writeFileSync(job, `name: check\nsteps:\n  - mapping: users\n    source: { csv: people.csv }\n`);
    expect(await main(['node', 'evsync', 'validate', job])).toBe(1);
    expect(out).toContain('users (');
  });

  it('counts one intent per e-mail under on_duplicate: last, and names the repeated column in the report', async () => {
    const mapping = join(dir, 'last.yaml');
    writeFileSync(
      mapping,
      'version: 1\non_duplicate: last\nunique: [email]\nintents:\n  - kind: user\n    params: { client_id: client_id, email: email, first_name: first_name, last_name: last_name }\n',
    );
    const people = join(dir, 'repeats.csv');
    writeFileSync(
      people,
      'client_id,email,first_name,last_name\nu1,a@x.org,A,B\nu2,A@x.org,a,b\nu3,c@x.org,E,F\n',
    );
    const report = join(dir, 'repeats.json');
    const args = ['validate', '--source', people, '--mapping', mapping, '--report', report];
    expect(await main(['node', 'evsync', ...args])).toBe(0);
    expect(out).toMatch(/intents +user 2\n/);
    expect(out).toContain('row 2 (line 3): email "A@x.org" was already used by row 1; this row replaces it');
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject([
      { status: 'duplicate', field: 'email', code: 'DUPLICATE_LAST' },
    ]);
  });

  it('--json carries the links to users or events that no step creates', async () => {
    const links = join(dir, 'speakers.csv');
    writeFileSync(links, 'event_client_id,user_client_id,type\ns1,ghost,speaker\ns1,ghost2,moderator\n');
    const args = ['validate', '--source', links, '--mapping', 'speakers', '--json'];
    expect(await main(['node', 'evsync', ...args])).toBe(0);
    const printed = JSON.parse(out) as { danglingLinks: unknown[] };
    expect(printed.danglingLinks).toEqual(
      expect.arrayContaining([
        {
          kind: 'speaker',
          parent: 'user',
          missing: 2,
          examples: ['row 1 → user ghost', 'row 2 → user ghost2'],
        },
        { kind: 'speaker', parent: 'event', missing: 1, examples: ['row 1 → event s1'] },
      ]),
    );
  });

  it('with --json, a file error is a JSON object on standard output too (and exit 2)', async () => {
    const missing = join(dir, 'missing.json');
    expect(
      await main(['node', 'evsync', 'validate', '--source', missing, '--mapping', 'pretalx', '--json']),
    ).toBe(2);
    expect(JSON.parse(out)).toEqual({
      error: {
        code: 'SOURCE_FILE_NOT_FOUND',
        message: expect.stringContaining('does not exist') as string,
        exitCode: 2,
      },
    });
    expect(err).toContain('does not exist');
  });

  it('reads a schedule export given with --source: by the mapping for .json and .xml, or by --format', async () => {
    const fixtures = join(import.meta.dirname, '../../../test/fixtures/mappings');
    const all = join(fixtures, 'sessionize-all.json');
    // Its speakers have no e-mails: every one is skipped, which is exit 1 and one line.
    expect(await main(['node', 'evsync', 'validate', '--source', all, '--mapping', 'sessionize'])).toBe(1);
    expect(out).toMatch(/← sessionize schedule .*sessionize-all\.json/);
    expect(out).toMatch(/intents +event 11, speaker 10/);
    expect(out).toContain('! user: all 10 rows skipped: the export has no e-mail for this speaker');
    out = '';
    const frab = join(fixtures, 'frab-schedule.xml');
    const args = ['validate', '--source', frab, '--format', 'frab', '--timezone', 'Europe/Berlin'];
    expect(await main(['node', 'evsync', ...args, '--mapping', 'pretalx'])).toBe(1);
    expect(out).toMatch(/← frab schedule /);
  });

  it.each([
    [['validate'], /Give a job file, or --source FILE with --mapping NAME/],
    [['validate', '--source', 'x.csv'], /--mapping NAME/],
    [['validate', '--source', join(dir, 'missing.csv'), '--mapping', 'users'], /does not exist/],
    [['validate', '--source', 'x.csv', '--mapping', 'nope'], /no shipped mapping "nope"/],
    [
      ['validate', '--source', 'x.json', '--mapping', 'users'],
      /--format sessionize, --format pretalx, --format frab or --format pretix_json/,
    ],
    [
      [
        'validate',
        '--source',
        'x.json',
        '--format',
        'pretix_json',
        '--timezone',
        'UTC',
        '--mapping',
        'pretix-orders',
      ],
      /--timezone is for schedule/,
    ],
    [
      ['validate', '--source', 'x.csv', '--format', 'xlsx', '--mapping', 'users'],
      /--format xlsx: use one of csv, /,
    ],
    [
      ['validate', '--source', 'x.csv', '--timezone', 'UTC', '--mapping', 'users'],
      /--timezone is for schedule/,
    ],
    [
      ['validate', '--source', 'x.csv', '--mapping', 'users', '--report', 'r.txt'],
      /must end in \.csv or \.json/,
    ],
  ])('exits 2 on a usage or file error: %j', async (args, message) => {
    expect(await main(['node', 'evsync', ...args])).toBe(2);
    expect(err).toMatch(message);
  });
});
