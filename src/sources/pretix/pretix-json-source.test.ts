import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceItem } from '../source-row.js';
import { createPretixJsonSource } from './pretix-json-source.js';

const FIXTURE = new URL('../../../test/fixtures/registration/pretix-orders.json', import.meta.url).pathname;

async function read(path: string): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for await (const item of createPretixJsonSource({ path, displayPath: 'orders.json' }).rows())
    items.push(item);
  return items;
}

function file(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'evsync-pretix-')), 'orders.json');
  writeFileSync(path, content);
  return path;
}

describe('pretix JSON order export', () => {
  it('gives each position a row with the CSV sheet’s columns, products and questions by name', async () => {
    const items = await read(FIXTURE);
    expect(items).toHaveLength(9);
    const [first, , , addon] = items;
    expect(first).toMatchObject({
      ok: true,
      origin: { source: 'orders.json', row: 1 },
      values: {
        'Order code': 'B7C8D',
        'Position ID': '1',
        Status: 'paid',
        Email: 'buyer@example.de',
        Product: 'Conference Ticket',
        'Attendee name': 'Björn Sæther',
        'Attendee email': 'bjorn@example.no',
        Country: 'NO',
        Admission: 'yes',
        'Add-on to position ID': '',
        'Dietary requirements': 'vegan',
      },
    });
    // An add-on names its ticket by the ticket's position number, as the CSV does.
    expect(addon).toMatchObject({ values: { 'Add-on to position ID': '1', Admission: 'no' } });
    const statuses = items.map((item) => (item.ok ? item.values.Status : undefined));
    expect(statuses).toEqual([
      'paid',
      'paid',
      'paid',
      'paid',
      'canceled',
      'pending',
      'expired',
      'paid',
      'paid',
    ]);
  });

  it('tells two questions of one text apart, and a question named like a column', async () => {
    const doc = {
      event: {
        items: [{ id: 1, name: 'Ticket', admission: true }],
        questions: [
          { id: 7, question: 'Company' },
          { id: 8, question: 'Size' },
          { id: 9, question: 'Size' },
        ],
        orders: [
          {
            code: 'A1',
            status: 'p',
            email: 'a@x.org',
            positions: [
              {
                id: 1,
                positionid: 1,
                item: 1,
                company: 'Own Co',
                answers: [
                  { question: 7, answer: 'Asked Co' },
                  { question: 8, answer: 'M' },
                  { question: 9, answer: 42 },
                ],
              },
            ],
          },
        ],
      },
    };
    const [item] = await read(file(JSON.stringify(doc)));
    expect(item).toMatchObject({
      values: { Company: 'Own Co', 'Company (7)': 'Asked Co', Size: 'M', 'Size (9)': '42' },
    });
  });

  it('refuses a file that is not JSON, or not this export, saying which', async () => {
    await expect(read(file('{"event":'))).rejects.toMatchObject({
      code: 'SOURCE_INVALID_JSON',
      message: expect.stringMatching(/^orders\.json is not valid JSON: /),
    });
    await expect(read(file('{"sessions": []}'))).rejects.toMatchObject({
      code: 'SOURCE_UNEXPECTED_SHAPE',
      message: expect.stringMatching(/does not look like pretix's "Order data \(JSON\)" export \(event: /),
    });
    await expect(read('/nonexistent/orders.json')).rejects.toMatchObject({ code: 'SOURCE_FILE_NOT_FOUND' });
  });
});
