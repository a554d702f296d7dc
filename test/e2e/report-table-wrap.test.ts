import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

const FOLDER = 'registrations-export-2026-11-28';
const FILE = 'attendees-from-the-ticket-shop.csv';
const LONG_EMAIL = 'this.address.is.far.too.long.to.fit.and.has.no.at.sign.example.org';

// Issue #40, item 9: `evsync report` as a table on a 140-column terminal (COLUMNS, as a
// shell sets it, since the table is piped here) wraps long cells instead of cutting them,
// keeps the file's name whole, and titles each column for what it holds.
describe('report as a table wraps long cells (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let runId: string;

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-report-table-');
    sandbox = await workspace.sandbox();
    workspace.write({
      'job.yaml': `name: wide\nsteps:\n  - mapping: users\n    source: { csv: ./${FOLDER}/${FILE} }\n`,
    });
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(`${workspace.dir}/${FOLDER}`);
    writeFileSync(
      `${workspace.dir}/${FOLDER}/${FILE}`,
      `client_id,email,first_name,last_name\nw1,w1@example.org,Ann,One\nw2,${LONG_EMAIL},Bo,Two\n,${LONG_EMAIL},Cy,Three\n`,
    );
    const run = await workspace.run(sandbox, ['run', 'job.yaml']);
    expect(run.code).toBe(1);
    runId = /^Run (\S+) \(wide, upsert\)/.exec(run.stdout)![1]!;
  }, 60_000);
  afterAll(async () => workspace?.close());

  const messageOf = async (key: string): Promise<string> => {
    const json = await workspace.run(sandbox, ['report', runId, '--json']);
    const rows = JSON.parse(json.stdout) as Array<{ key: string; message: string }>;
    const message = rows.find((row) => row.key === key)!.message;
    expect(message.length).toBeGreaterThan(60);
    return message;
  };

  /** The table's rows: each a first line and the lines continuing it (they start blank). */
  const tableAt = async (columns: string) => {
    const out = await workspace.run(sandbox, ['report', runId, '--format', 'table'], { COLUMNS: columns });
    expect(out.code).toBe(0);
    const [header, ...body] = out.stdout.trimEnd().split('\n');
    const rows: string[][] = [];
    for (const line of body) {
      if (line.startsWith(' ')) rows.at(-1)!.push(line);
      else rows.push([line]);
    }
    /** A column's text in a row, its wrapped lines joined. */
    const cell = (row: string[], title: string, next?: string): string =>
      row
        .map((line) =>
          line.slice(header!.indexOf(title), next === undefined ? undefined : header!.indexOf(next)).trim(),
        )
        .filter(Boolean)
        .join('\n');
    return { header: header!, body, rows, cell };
  };

  it('at 140 columns: no line past the width, true headers, messages and file names whole', async () => {
    const table = await tableAt('140');
    expect(table.header).toMatch(/^kind +key +action +where +http +code +message$/);
    for (const line of [table.header, ...table.body]) expect(line.length).toBeLessThanOrEqual(140);
    const w2 = table.rows.find((row) => row[0]!.startsWith('user     w2 '))!;
    expect(table.cell(w2, 'code', 'message')).toBe('INVALID_EMAIL');
    expect(table.cell(w2, 'http', 'code')).toBe('');
    // The message is all there, wrapped at its words; the file's name stays whole.
    expect(table.cell(w2, 'message').replaceAll('\n', ' ')).toBe(await messageOf('w2'));
    const where = table.cell(w2, 'where', 'http').split('\n');
    expect(where.join('')).toBe(`./${FOLDER}/${FILE}:3`);
    expect(where.at(-1)).toBe('ticket-shop.csv:3');
    // A row without a client_id is keyed by its place: the key wraps too, its end kept.
    const placed = table.rows.find((row) => table.cell(row, 'key', 'action').startsWith('@./'))!;
    expect(table.cell(placed, 'key', 'action').replaceAll('\n', '')).toBe(`@./${FOLDER}/${FILE}:3`);
    expect(table.cell(placed, 'message').replaceAll('\n', ' ')).toBe(
      await messageOf(`@./${FOLDER}/${FILE}:3`),
    );
    const created = table.rows.find((row) => row[0]!.startsWith('user     w1 '))!;
    expect(created.length).toBeGreaterThan(1); // its where wraps
    expect(table.cell(created, 'action', 'where')).toBe('created');
    expect(table.cell(created, 'http', 'code')).toBe('200');
  }, 60_000);

  it('at 80 columns the message still wraps within the line', async () => {
    const table = await tableAt('80');
    for (const line of [table.header, ...table.body]) expect(line.length).toBeLessThanOrEqual(110);
    const w2 = table.rows.find((row) => row[0]!.startsWith('user     w2 '))!;
    // Broken inside a word where no space is near: the same text, spaces aside.
    expect(table.cell(w2, 'message').replace(/\s/g, '')).toBe((await messageOf('w2')).replace(/\s/g, ''));
  }, 60_000);
});
