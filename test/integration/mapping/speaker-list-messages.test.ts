import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMapping } from '../../../src/mapping/load-mapping.js';
import { mapSource } from '../../../src/mapping/map-source.js';
import type { MappedItem } from '../../../src/mapping/mapped-item.js';
import { openSource } from '../../../src/sources/open-source.js';
import { sourceConfigSchema } from '../../../src/sources/source-config.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/mappings');

// A public schedule export has no e-mails: they come from the organiser's speaker list. A
// bad one is the list's to mend, so the row's message says where in the list it is, not
// only the export's row the speaker became.
describe('a value the speaker list gave, wrong', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-speaker-list-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the list’s row and file in the row’s problem', async () => {
    cpSync(join(FIXTURES, 'pretalx-democon.json'), join(dir, 'pretalx.json'));
    writeFileSync(
      join(dir, 'speakers.csv'),
      'Speaker Id,Name,Email\n' +
        'NQTF8Y,Brian Robinson,brian@example.org\n' +
        'XHSHNG,Jordan Parks,jordan@\n' +
        'QLYZSY,Kimberly Griffin,kim@example.org\n',
    );
    const config = sourceConfigSchema.parse({
      pretalx: {
        path: 'pretalx.json',
        speakers: { csv: 'speakers.csv', id: 'Speaker Id', name: 'Name', email: 'Email' },
      },
    });
    const items: MappedItem[] = [];
    for await (const item of mapSource(openSource(config, { baseDir: dir }), await loadMapping('pretalx')))
      items.push(item);

    const invalid = items.filter((item) => item.type === 'invalid');
    expect(invalid.map((item) => item.problems.map((problem) => problem.message))).toEqual([
      [
        expect.stringMatching(
          /^row \d+, email: "jordan@" is not an e-mail address \(as given in row 2 \(line 3\) of CSV file .*speakers\.csv\)$/,
        ),
      ],
    ]);
    // The speakers whose list rows are good become users, their messages untouched.
    const users = items.flatMap((item) =>
      item.type === 'intents' ? item.intents.filter((intent) => intent.kind === 'user') : [],
    );
    expect(users).toHaveLength(2);
  });
});
