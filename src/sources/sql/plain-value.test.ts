import { describe, expect, it } from 'vitest';
import { Base64Columns, bytesText, plainRecord } from './plain-value.js';

describe('bytes from a binary-typed column', () => {
  it('read as text when they are UTF-8 text, line breaks and tabs included', () => {
    expect(bytesText(Buffer.from('Fayé Müller\r\n\tok', 'utf8'))).toBe('Fayé Müller\r\n\tok');
    expect(bytesText(Buffer.alloc(0))).toBe('');
  });

  it('are no text when not UTF-8, or when they hold control characters (NUL, ESC, DEL)', () => {
    expect(bytesText(Buffer.from('Fayé', 'latin1'))).toBeUndefined();
    for (const control of ['a\u0000b', '\u001b[0m', 'x\u007f'])
      expect(bytesText(Buffer.from(control))).toBeUndefined();
  });

  it('stay base64 otherwise, counted by column for the source’s note, leaves of arrays and objects too', () => {
    const base64 = new Base64Columns('CONVERT(col USING latin1)');
    const latin = Buffer.from('Fayé', 'latin1');
    expect(
      plainRecord({ name: Buffer.from('Fayé'), latin, list: [latin, Buffer.from('ok')], none: null }, base64),
    ).toEqual({ name: 'Fayé', latin: 'RmF56Q==', list: ['RmF56Q==', 'ok'], none: null });
    plainRecord({ latin }, base64);
    expect(base64.notes()).toEqual([
      'bytes that are not UTF-8 text were read as base64 in "latin" (2 values), "list" (1 value): if it is text in another encoding, convert it in the query (CONVERT(col USING latin1)); if it is not text (an image, a packed id), leave it out of the query',
    ]);
    expect(new Base64Columns('x').notes()).toEqual([]);
  });
});
