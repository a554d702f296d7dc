import iconv from 'iconv-lite';
import { validUtf8Length, type CsvEncoding } from './detect-encoding.js';
import type { Utf8Marks } from './utf8-marks.js';

/**
 * What Windows-1252 reads a UTF-8 lead byte (0xC2–0xF4) followed by a continuation byte
 * (0x80–0xBF) as: `Ã«` for `ë`. Built from iconv's own table, so the class matches exactly
 * what the decoder wrote (U+FFFD for the continuation bytes it leaves undefined).
 */
const UTF8_PAIR_IN_1252 = new RegExp(
  `[\\u00C2-\\u00F4][${[
    ...iconv.decode(Buffer.from(Array.from({ length: 0x40 }, (_, i) => 0x80 + i)), 'windows-1252'),
  ]
    .map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('')}]`,
  'g',
);

/**
 * Marks the U+FFFD a one-byte decoder put in `text` for bytes `readAs` leaves undefined, and,
 * when `findUtf8` (a Windows-1252 guess), the valid multi-byte UTF-8 characters among the
 * bytes: each becomes one U+FFFD with a mark naming it, so its row fails instead of sending
 * `ZoÃ«`. `text` is `bytes` decoded one character a byte, so an index in one is an index in
 * the other. The regex runs natively and finds nothing in a file without such pairs.
 */
export function markSingleByte(
  text: string,
  bytes: Uint8Array,
  offset: number,
  readAs: CsvEncoding,
  marks: Utf8Marks,
  findUtf8: boolean,
): string {
  let out = '';
  let from = 0;
  const markUndefined = (end: number): void => {
    for (let at = text.indexOf('\uFFFD', from); at !== -1 && at < end; at = text.indexOf('\uFFFD', at + 1)) {
      marks.add({ byteOffset: offset + at, byte: bytes[at], readAs });
    }
  };
  if (findUtf8) {
    UTF8_PAIR_IN_1252.lastIndex = 0;
    for (let match = UTF8_PAIR_IN_1252.exec(text); match !== null; match = UTF8_PAIR_IN_1252.exec(text)) {
      const at = match.index;
      const length = validUtf8Length(bytes, at);
      if (length < 2) continue; // a three- or four-byte lead cut short: Windows-1252 text
      markUndefined(at);
      out += `${text.slice(from, at)}\uFFFD`;
      marks.add({
        byteOffset: offset + at,
        byte: bytes[at],
        readAs,
        utf8: Buffer.from(bytes.subarray(at, at + length)).toString('utf8'),
      });
      from = at + length;
      UTF8_PAIR_IN_1252.lastIndex = from;
    }
  }
  markUndefined(text.length);
  return from === 0 ? text : out + text.slice(from);
}
