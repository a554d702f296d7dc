import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { createCsvSource, type CsvSourceOptions } from './csv-source.js';
import { MAX_OPEN_RECORD_CHARS } from './parse-csv-chunks.js';
import type { SourceItem } from '../source-row.js';
import { SourceError } from '../source-error.js';
import { csvSourceSchema } from '../source-config.js';

const SPECTRUM = '/work/shared/fixtures/csv-spectrum';
const OURS = join(import.meta.dirname, '../../../test/fixtures/sources');

async function readAll(options: CsvSourceOptions): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for await (const item of createCsvSource(options).rows()) items.push(item);
  return items;
}
const valuesOf = (items: SourceItem[]): unknown[] => items.map((item) => (item.ok ? item.values : item));

describe('csv-spectrum', () => {
  const names = readdirSync(join(SPECTRUM, 'csvs')).filter((name) => name.endsWith('.csv'));

  it('has the fixtures', () => expect(names.length).toBeGreaterThanOrEqual(12));

  for (const name of names) {
    it(`parses ${name} to its json twin`, async () => {
      const raw: unknown = JSON.parse(
        readFileSync(join(SPECTRUM, 'json', name.replace(/\.csv$/, '.json')), 'utf8'),
      );
      const expected = (Array.isArray(raw) ? raw : [raw]) as Record<string, string>[];
      if (name === 'location_coordinates.csv') {
        // Upstream's twin has a different phone number than its CSV (2095257564); every
        // other value, including the quotes inside an unquoted field, must match.
        expected[0]!['Contact Phone Number'] = '2095257564';
      }
      const items = await readAll({ path: join(SPECTRUM, 'csvs', name) });
      expect(valuesOf(items)).toEqual(expected);
    });
  }
});

describe('encodings', () => {
  it('reads Excel "Unicode text" (UTF-16LE with BOM)', async () => {
    const items = await readAll({ path: join(SPECTRUM, 'node-csv-365-utf16le-bom-windows.csv') });
    expect(valuesOf(items)).toEqual([{ a: '1', b: '2', c: '3' }]);
  });

  it('strips a UTF-8 BOM from the first header name', async () => {
    expect(valuesOf(await readAll({ path: join(SPECTRUM, 'node-csv-365-utf8-bom-windows.csv') }))).toEqual([
      { a: '1', b: '2', c: '3' },
    ]);
    expect(valuesOf(await readAll({ path: join(SPECTRUM, 'papaparse-utf-8-bom-sample.csv') }))).toEqual([
      { A: 'X', B: 'Y', C: 'Z' },
    ]);
  });

  it('detects Windows-1252 when the bytes are not UTF-8', async () => {
    const items = await readAll({ path: join(OURS, 'windows-1252.csv') });
    expect(valuesOf(items)).toEqual([
      { client_id: 'u1', first_name: 'Zoé', last_name: 'Müller', company: 'Straße AG' },
      { client_id: 'u2', first_name: 'Ana', last_name: 'Núñez', company: 'Café, €5' },
    ]);
  });

  it('honours a configured encoding', async () => {
    const items = await readAll({ path: join(OURS, 'windows-1252.csv'), encoding: 'latin1' });
    expect(items[0]).toMatchObject({ values: { first_name: 'Zoé' } });
  });

  it('switches to Windows-1252 when a bad byte comes after the detection sample', async () => {
    const items = await readAll({ path: join(OURS, 'late-latin1.csv'), sampleBytes: 1024 });
    expect(items).toHaveLength(6001);
    expect(items.at(-1)).toMatchObject({
      ok: true,
      values: { id: 'y', name: 'Rémy' },
      origin: { row: 6001, line: 6002 },
    });
  });

  describe('encodings a guess cannot tell from Windows-1252', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evsync-encodings-'));
    const file = (name: string, text: string, encoding: string): string => {
      const path = join(dir, name);
      writeFileSync(path, iconv.encode(text, encoding));
      return path;
    };
    const polish = file(
      'pl.csv',
      'id,first_name,last_name\np1,Łukasz,Wąs\np2,Zofia,Łaźniak\n',
      'windows-1250',
    );
    const japanese = file('ja.csv', 'id,first_name,last_name\nj1,さくら,田中\nj2,カナ,佐藤\n', 'shift_jis');

    it('reads Windows-1250 and Shift_JIS when encoding: names them, by an alias too', async () => {
      expect(valuesOf(await readAll({ path: polish, encoding: 'windows-1250' }))).toEqual([
        { id: 'p1', first_name: 'Łukasz', last_name: 'Wąs' },
        { id: 'p2', first_name: 'Zofia', last_name: 'Łaźniak' },
      ]);
      expect(valuesOf(await readAll({ path: japanese, encoding: 'shift_jis' }))).toEqual([
        { id: 'j1', first_name: 'さくら', last_name: '田中' },
        { id: 'j2', first_name: 'カナ', last_name: '佐藤' },
      ]);
      expect(csvSourceSchema.parse({ path: 'x.csv', encoding: 'CP1250' })).toEqual({
        path: 'x.csv',
        encoding: 'windows-1250',
      });
      // The job file's error names the union's branch that fits (an object with a path).
      expect(
        JSON.stringify(csvSourceSchema.safeParse({ path: 'x.csv', encoding: 'klingon' }).error),
      ).toContain(
        'is not an encoding evsync reads; use one of utf-8, utf-16le, utf-16be, windows-1252, latin1, iso-8859-15, windows-1250',
      );
    });

    it('says which encoding the bytes of a Windows-1252 guess look like', async () => {
      const source = createCsvSource({ path: polish });
      for await (const _item of source.rows()) void _item;
      expect(source.notes?.()).toEqual([
        expect.stringMatching(
          /^read as Windows-1252 \(guessed\): .*; 4 bytes read as £ ¥ ³ ¹ Ÿ beside letters, where Windows-1250 \(Central European\) has Ł Ą ł ą ź: if Polish or Czech names look wrong, set encoding: windows-1250; set encoding: in the source to choose$/,
        ),
      ]);
      const guessed = createCsvSource({ path: japanese });
      const items: SourceItem[] = [];
      for await (const item of guessed.rows()) items.push(item);
      expect(guessed.notes?.()[0]).toMatch(
        /read as ‚ ƒ „ † ‡ ˆ ‰ ˜, which names do not hold: if the file is Japanese/,
      );
      // 佐藤 holds 0x8D, which Windows-1252 leaves undefined: that row is not read as garbage. さくら
      // 田中 has no such byte: it reads as signs, which the note above is for.
      expect(items.map((item) => (item.ok ? item.values.id : item.code))).toEqual([
        'j1',
        'CSV_UNDEFINED_BYTE',
      ]);
    });

    it('fails the row holding a byte the encoding does not define, and reads the others', async () => {
      const path = join(dir, 'undefined-byte.csv');
      writeFileSync(
        path,
        Buffer.concat([
          Buffer.from('id,name\nu1,Zo'),
          Buffer.from([0xe9]),
          Buffer.from('\nu2,Ab'),
          Buffer.from([0x81]),
          Buffer.from('c\nu3,Al'),
          Buffer.from([0xe9]),
          Buffer.from('\n'),
        ]),
      );
      const items = await readAll({ path, displayPath: 'undefined-byte.csv' });
      expect(valuesOf(items)).toEqual([
        { id: 'u1', name: 'Zoé' },
        {
          ok: false,
          origin: { source: 'undefined-byte.csv', row: 2, line: 3 },
          code: 'CSV_UNDEFINED_BYTE',
          message:
            'has a byte that Windows-1252 does not define (0x81 at byte 20 of the file), so the row was not read: the file is in another encoding; ' +
            'set encoding: in the source to the one it was saved in (windows-1250 for Polish, Czech or Hungarian, windows-1251 for Cyrillic, shift_jis for Japanese; docs/sources.md lists them all)',
        },
        { id: 'u3', name: 'Alé' },
      ]);
    });
    it('a UTF-8 row in a file guessed to be Windows-1252 fails, the Windows-1252 rows are read', async () => {
      const path = join(dir, 'mixed.csv');
      // UTF-8 first, then rows appended in Windows-1252: more bytes of those, so the guess is theirs.
      const utf8 = Buffer.from('id,name\nu1,Zoë Smith\n', 'utf8');
      writeFileSync(
        path,
        Buffer.concat([utf8, iconv.encode('u2,René Lefèvre\nu3,Ana Muñoz\n', 'windows-1252')]),
      );
      const source = createCsvSource({ path, displayPath: 'mixed.csv' });
      const items: SourceItem[] = [];
      for await (const item of source.rows()) items.push(item);
      expect(valuesOf(items)).toEqual([
        {
          ok: false,
          origin: { source: 'mixed.csv', row: 1, line: 2 },
          code: 'CSV_MIXED_ENCODING',
          message:
            `has a character written in UTF-8 ("ë", bytes 0xC3 0xAB at byte ${utf8.indexOf(0xc3)} of the file) in a file read as Windows-1252 (guessed from its other bytes), ` +
            'so the row was not read: the file mixes UTF-8 and Windows-1252: save it in one encoding, or set encoding: in the source',
        },
        { id: 'u2', name: 'René Lefèvre' },
        { id: 'u3', name: 'Ana Muñoz' },
      ]);
      expect(source.notes?.()[0]).toMatch(
        /^read as Windows-1252 \(guessed\): the file has 1 UTF-8 character and 3 bytes that are not UTF-8; the rows holding UTF-8 characters are not read, for the file mixes the two encodings;/,
      );
      // Decided late (the sample was ASCII): the same.
      const late = join(dir, 'mixed-late.csv');
      writeFileSync(
        late,
        Buffer.concat([Buffer.from('id,name\nu0,Plain\n'), readFileSync(path).subarray(8)]),
      );
      const lateSource = createCsvSource({ path: late, sampleBytes: 16 });
      const lateItems: SourceItem[] = [];
      for await (const item of lateSource.rows()) lateItems.push(item);
      expect(lateItems.map((item) => (item.ok ? item.values.name : item.code))).toEqual([
        'Plain',
        'CSV_MIXED_ENCODING',
        'René Lefèvre',
        'Ana Muñoz',
      ]);
      expect(lateSource.notes?.()[1]).toMatch(
        /read as Windows-1252: .*; the rows holding UTF-8 characters are not read/,
      );
      // Set by encoding:, Windows-1252 is what the file is said to be: read as it says.
      expect(valuesOf(await readAll({ path, encoding: 'windows-1252' }))[0]).toEqual({
        id: 'u1',
        name: 'ZoÃ« Smith',
      });
    });
  });

  it('reads UTF-16 with tab and pipe delimiters', async () => {
    expect(valuesOf(await readAll({ path: join(OURS, 'utf16le-tab.csv') }))).toEqual([
      { name: 'José', city: 'Málaga' },
    ]);
    expect(valuesOf(await readAll({ path: join(OURS, 'utf16be.csv') }))).toEqual([
      { name: 'Jürgen', city: 'Köln' },
    ]);
  });
});

describe('delimiters', () => {
  it("uses Excel's sep= line and counts it as line 1", async () => {
    const items = await readAll({ path: join(OURS, 'semicolon-sep.csv') });
    expect(valuesOf(items)).toEqual([
      { email: 'a@example.com', first_name: 'Anne', amount: '1,50' },
      { email: 'b@example.com', first_name: 'Bo; Jr.', amount: '2,00' },
    ]);
    expect(items[0]!.origin).toEqual({ source: expect.any(String), row: 1, line: 3 });
  });

  it('detects semicolons in the header line', async () => {
    const items = await readAll({ path: join(OURS, 'semicolon.csv') });
    expect(valuesOf(items)).toEqual([
      { email: 'c@example.com', first_name: 'Chloé', last_name: 'Dupont' },
      { email: 'd@example.com', first_name: 'Dan', last_name: 'Le "Grand"' },
    ]);
  });

  it('honours a configured delimiter', async () => {
    const items = await readAll({ path: join(OURS, 'semicolon.csv'), delimiter: ',' });
    expect(Object.keys((items[0] as { values: object }).values)).toEqual(['email;first_name;last_name']);
  });
});

describe('problems', () => {
  it('reports ragged rows and an unterminated quote with physical lines, and goes on', async () => {
    const items = await readAll({ path: join(OURS, 'problems.csv'), displayPath: 'problems.csv' });
    expect(items.map((item) => [item.ok ? 'ok' : item.code, item.origin.row, item.origin.line])).toEqual([
      ['ok', 1, 2],
      ['CSV_RAGGED_ROW', 2, 3],
      ['ok', 3, 5],
      ['CSV_RAGGED_ROW', 4, 7],
      ['CSV_UNTERMINATED_QUOTE', 5, 8],
    ]);
    expect(items[1]).toMatchObject({ message: expect.stringContaining('has 2 fields but the header has 3') });
    expect(items[4]).toMatchObject({ message: expect.stringContaining('opened on line 8') });
    expect(items[2]).toMatchObject({ values: { a: 'multi\nline', b: 'x', c: 'y' } });
  });

  it('refuses duplicate header names, naming them', async () => {
    await expect(
      readAll({ path: join(OURS, 'duplicate-header.csv'), displayPath: 'dup.csv' }),
    ).rejects.toMatchObject({
      code: 'CSV_DUPLICATE_HEADER',
      message: expect.stringContaining('"name" (column 2 (B), column 4 (D))'),
    });
  });

  it('refuses an empty header name', async () => {
    await expect(readAll({ path: join(OURS, 'empty-header.csv') })).rejects.toMatchObject({
      code: 'CSV_EMPTY_HEADER',
      message: expect.stringContaining('has an empty name in column 2 (B): '),
    });
  });

  it('says when the file does not exist', async () => {
    await expect(readAll({ path: join(OURS, 'nope.csv'), displayPath: 'nope.csv' })).rejects.toMatchObject({
      code: 'SOURCE_FILE_NOT_FOUND',
      message: expect.stringContaining('nope.csv'),
    });
  });

  it('says when the path is a directory (a usage error, not a crash)', async () => {
    const error = await readAll({ path: OURS, displayPath: './data' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SourceError);
    expect(error).toMatchObject({
      code: 'SOURCE_FILE_UNREADABLE',
      message: `cannot read CSV file ./data: it is a directory (${OURS}): give the CSV file's path`,
    });
  });
});

describe('edge cases', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-csv-'));
  const file = (name: string, bytes: string | Buffer): string => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };

  it('a quote never closed near the top of a big file costs one row, not the rest of the file', async () => {
    const rows = Math.ceil((MAX_OPEN_RECORD_CHARS * 1.5) / 30);
    const lines = ['id,name,city', '1,Ann,Oslo', '2,"Bo,Rome'];
    for (let id = 3; id < rows; id++) lines.push(`${id},Name ${id},City`);
    const items = await readAll({
      path: file('runaway.csv', `${lines.join('\r\n')}\r\n`),
      displayPath: 'r.csv',
    });
    expect(items).toHaveLength(rows - 1);
    expect(items[1]).toMatchObject({
      ok: false,
      code: 'CSV_UNTERMINATED_QUOTE',
      origin: { row: 2, line: 3 },
      message: expect.stringContaining('opened on line 3 is not closed within the next 1,048,576 characters'),
    });
    expect(items[2]).toMatchObject({ ok: true, origin: { row: 3, line: 4 }, values: { id: '3' } });
    expect(items.at(-1)).toMatchObject({
      ok: true,
      origin: { row: rows - 1, line: rows },
      values: { city: 'City' },
    });
  });

  it('reads a header-only file as no rows, and refuses a file with no header', async () => {
    expect(await readAll({ path: file('header-only.csv', 'a,b\r\n') })).toEqual([]);
    await expect(readAll({ path: file('zero.csv', '') })).rejects.toMatchObject({ code: 'CSV_NO_HEADER' });
    await expect(readAll({ path: file('blank.csv', '\n\n') })).rejects.toMatchObject({
      code: 'CSV_NO_HEADER',
    });
  });

  it('reports text after a closing quote', async () => {
    const items = await readAll({ path: file('bad-quote.csv', 'a,b\n"x"y",2\n3,4\n') });
    expect(items.map((item) => (item.ok ? 'ok' : item.code))).toEqual(['CSV_MALFORMED_QUOTE', 'ok']);
  });

  it('reads every row after text after a closing quote, with its own row and line', async () => {
    const header = 'client_id,email,first_name,last_name\n';
    const shape = (items: SourceItem[]): unknown[] =>
      items.map((item) => [item.ok ? item.values.client_id : item.code, item.origin.row, item.origin.line]);
    // A later quote used to close the bad value, swallowing u2.
    const later = await readAll({
      path: file(
        'bad-quote-later.csv',
        `${header}u1,"a@x.com"x,Ann,Lee\nu2,"b@x.com",Bob,Lee\nu3,c@x.com,Cy,Lee\n`,
      ),
    });
    expect(shape(later)).toEqual([
      ['CSV_MALFORMED_QUOTE', 1, 2],
      ['u2', 2, 3],
      ['u3', 3, 4],
    ]);
    expect(later[1]).toMatchObject({ values: { email: 'b@x.com', first_name: 'Bob' } });
    // Without a later quote, the rest of the file used to be one "unterminated" value.
    const none = await readAll({
      path: file(
        'bad-quote-none.csv',
        `${header}u1,"a@x.com"x,Ann,Lee\nu2,b@x.com,Bob,Lee\nu3,c@x.com,Cy,Lee\n`,
      ),
    });
    expect(shape(none)).toEqual([
      ['CSV_MALFORMED_QUOTE', 1, 2],
      ['u2', 2, 3],
      ['u3', 3, 4],
    ]);
    expect(none[0]).toMatchObject({ message: expect.stringContaining('quoted value followed by more text') });
    // Doubled quotes and multi-line values before and after; two bad rows; no line break at the end.
    const mixed = await readAll({
      path: file(
        'bad-quote-mixed.csv',
        `${header}"u1\nx","a ""b""" c,Ann,Lee\nu2,"say ""hi""",Bob,"Lee\nJr"\nu3,"c"",d"x,Cy,Lee\nu4,d,"Di",Lee`,
      ),
    });
    expect(shape(mixed)).toEqual([
      ['CSV_MALFORMED_QUOTE', 1, 2],
      ['u2', 2, 4],
      ['CSV_MALFORMED_QUOTE', 3, 6],
      ['u4', 4, 7],
    ]);
    expect(mixed[1]).toMatchObject({ values: { email: 'say "hi"', last_name: 'Lee\nJr' } });
  });

  it("skips Excel's blank rows (every cell empty) like blank lines, keeping later lines right", async () => {
    const items = await readAll({
      path: file(
        'excel-blank-rows.csv',
        ';;;\r\nid;email;first;last\r\nu1;a@x.com;Ann;Lee\r\n;;;\r\n ; \t;;\r\nu2;b@x.com;Bob;Lee\r\n;;;\r\n;;;\r\n',
      ),
    });
    expect(items.map((item) => [item.ok, item.origin.row, item.origin.line])).toEqual([
      [true, 1, 3],
      [true, 2, 6],
    ]);
  });

  it('ignores empty header cells at the end, and reports a value under one instead of losing it', async () => {
    const items = await readAll({
      path: file(
        'trailing-header.csv',
        'id;email;;\nu1;a@x.com;;\nu2;b@x.com\nu3;c@x.com;;oops\nu4;d@x.com; ;\n',
      ),
    });
    expect(items.map((item) => [item.ok ? 'ok' : item.code, item.origin.row, item.origin.line])).toEqual([
      ['ok', 1, 2],
      ['ok', 2, 3],
      ['CSV_VALUE_IN_UNNAMED_COLUMN', 3, 4],
      ['ok', 4, 5],
    ]);
    expect(items[0]).toMatchObject({ values: { id: 'u1', email: 'a@x.com' } });
    expect(Object.keys((items[0] as { values: object }).values)).toEqual(['id', 'email']);
    expect(items[2]).toMatchObject({
      message: expect.stringContaining('has a value in column 4 (D), which has no name'),
    });
    const ragged = await readAll({ path: file('trailing-header-2.csv', 'id;email;;\nu1\nu2;b;;;\n') });
    expect(ragged).toMatchObject([
      { code: 'CSV_RAGGED_ROW', message: expect.stringContaining('has 1 fields but the header has 2') },
      { code: 'CSV_RAGGED_ROW', message: expect.stringContaining('has 5 fields but the header has 4') },
    ]);
  });

  it('names every empty header cell between names once, without doubled wording', async () => {
    await expect(readAll({ path: file('gaps.csv', 'a,,b,,c,,\n1,2,3,4,5,,\n') })).rejects.toMatchObject({
      code: 'CSV_EMPTY_HEADER',
      message: expect.stringContaining('has an empty name in column 2 (B), column 4 (D): give'),
    });
  });

  it('counts CRLF lines inside quoted values once', async () => {
    const items = await readAll({ path: file('crlf.csv', 'a,b\r\n"1\r\n2\r\n3",x\r\n4,y\r\n') });
    expect(items.map((item) => item.origin.line)).toEqual([2, 5]);
    expect(items[0]).toMatchObject({ values: { a: '1\r\n2\r\n3' } });
    // The row whose value spans lines says so, for the mapping's single-line fields.
    expect(items.map((item) => item.ok && item.lineBreaks === true)).toEqual([true, false]);
  });

  it('reads each line break as one where a file mixes CRLF, CR and LF, and keeps quoted breaks', async () => {
    // Most breaks are CRLF: the file's kind, which a quoted break of another kind becomes.
    const text = 'a,b\r\n1,x\r\n2,"y\r\ny"\r\n3,z\r4,"w\rw"\r5,v\n';
    const items = await readAll({ path: file('mixed.csv', text) });
    expect(valuesOf(items)).toEqual([
      { a: '1', b: 'x' },
      { a: '2', b: 'y\r\ny' },
      { a: '3', b: 'z' },
      { a: '4', b: 'w\r\nw' },
      { a: '5', b: 'v' },
    ]);
    expect(items.map((item) => item.origin.line)).toEqual([2, 3, 5, 6, 8]);
    // A CR that ends one piece of the stream and the LF that starts the next are one break.
    const pieces = await readAll({ path: file('split.csv', `a,b\r\n${'1,x\r\n'.repeat(20_000)}`) });
    expect(pieces).toHaveLength(20_000);
    expect(pieces.every((item) => item.ok && item.values.b === 'x')).toBe(true);
  });

  it('refuses a record past max_record_chars as a row of its own, and reads on at its line end', async () => {
    const long = 'x'.repeat(300_000);
    const items = await readAll({
      path: file('long.csv', `a,b\n1,ok\n2,${long}\n3,"${long}"\n4,ok\n`),
      maxRecordChars: 65_536,
    });
    expect(items.map((item) => (item.ok ? item.values.a : item.code))).toEqual([
      '1',
      'CSV_RECORD_TOO_LONG',
      'CSV_RECORD_TOO_LONG',
      '4',
    ]);
    expect(items[1]).toMatchObject({
      origin: { row: 2, line: 3 },
      message: expect.stringMatching(/^is longer than 65,536 characters on one line, so it was not read/),
    });
    expect(items[3]?.origin).toMatchObject({ row: 4, line: 5 });
  });

  it('refuses a file without a line break at once, naming the header', async () => {
    await expect(
      readAll({ path: file('noline.csv', 'a'.repeat(300_000)), maxRecordChars: 65_536 }),
    ).rejects.toMatchObject({
      code: 'CSV_RECORD_TOO_LONG',
      message: expect.stringContaining('the header is longer'),
    });
  });

  it('says how many lines a record took when a quote left open makes it ragged', async () => {
    const items = await readAll({ path: file('open.csv', 'a,b\n1,"x\n2,y\n3,z\n4",w\n5,v\n') });
    expect(items[0]).toMatchObject({
      code: 'CSV_RAGGED_ROW',
      message: expect.stringContaining('(it runs over lines 2–5: 4 lines read as one record'),
    });
    expect(items[1]).toMatchObject({ ok: true, values: { a: '5', b: 'v' } });
  });

  it('handles a BOM before the sep= line, and keeps values untrimmed', async () => {
    const items = await readAll({ path: file('bom-sep.csv', '\ufeffsep=;\n Name ;City\n Ann ; Oslo\n') });
    expect(items).toEqual([
      {
        ok: true,
        origin: expect.objectContaining({ row: 1, line: 3 }),
        values: { Name: ' Ann ', City: ' Oslo' },
      },
    ]);
  });

  it('lets the reader stop early', async () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `${i},x`).join('\n');
    let seen = 0;
    for await (const _item of createCsvSource({ path: file('long.csv', `a,b\n${lines}\n`) }).rows())
      if (++seen === 5) break;
    expect(seen).toBe(5);
  });
});
