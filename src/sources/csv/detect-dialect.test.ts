import { describe, expect, it } from 'vitest';
import { detectDialect } from './detect-delimiter.js';
import { detectEncoding, incompleteUtf8Tail } from './detect-encoding.js';

describe('detectDialect', () => {
  it('counts delimiters in the header line outside quotes', () => {
    expect(detectDialect('"a,b";c;d\n1,2,3,4,5,6\n').delimiter).toBe(';');
    expect(detectDialect('a\tb\tc\r\n').delimiter).toBe('\t');
    expect(detectDialect('a|b|c\n').delimiter).toBe('|');
    expect(detectDialect('"multi\nline, header";x\n').delimiter).toBe(';');
  });

  it('falls back to a comma for a one-column file', () => {
    expect(detectDialect('email\nx@example.com\n')).toEqual({
      delimiter: ',',
      sepLineLength: 0,
      reason: 'default',
    });
  });

  it("reads Excel's sep= line, which a configured delimiter still skips", () => {
    expect(detectDialect('sep=|\r\na|b\r\n')).toEqual({
      delimiter: '|',
      sepLineLength: 7,
      reason: 'sep-line',
    });
    expect(detectDialect('SEP=;\na;b\n', ',')).toEqual({
      delimiter: ',',
      sepLineLength: 6,
      reason: 'configured',
    });
  });
});

describe('detectEncoding', () => {
  it('prefers a BOM, then UTF-8 validity', () => {
    expect(detectEncoding(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toMatchObject({
      encoding: 'utf-8',
      bomLength: 3,
    });
    expect(detectEncoding(Buffer.from([0xfe, 0xff, 0, 0x61]))).toMatchObject({
      encoding: 'utf-16be',
      bomLength: 2,
    });
    expect(detectEncoding(Buffer.from('Zoé!', 'latin1'))).toMatchObject({
      encoding: 'windows-1252',
      reason: 'not-utf-8',
    });
  });

  it('does not blame UTF-8 for a character cut at the end of the sample', () => {
    const cut = Buffer.from('abc€', 'utf8').subarray(0, 5);
    expect(incompleteUtf8Tail(cut)).toBe(2);
    expect(detectEncoding(cut)).toMatchObject({ encoding: 'utf-8' });
  });

  it('keeps the BOM out of a configured matching encoding', () => {
    expect(detectEncoding(Buffer.from([0xff, 0xfe, 0x61, 0]), 'utf-16le')).toMatchObject({ bomLength: 2 });
    expect(detectEncoding(Buffer.from('abc'), 'windows-1252')).toMatchObject({ bomLength: 0 });
  });
});
