import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { createDecodeStream, decodeMixed, type DecodeOptions } from './decode-stream.js';

async function decode(chunks: Buffer[], options: DecodeOptions): Promise<string> {
  let out = '';
  for await (const text of Readable.from(chunks).pipe(createDecodeStream(options))) out += text as string;
  return out;
}

describe('createDecodeStream', () => {
  it('joins a UTF-8 character split across chunks', async () => {
    const bytes = Buffer.from('Zoë — ✓ 𝄞', 'utf8');
    const chunks = Array.from(bytes, (byte) => Buffer.from([byte]));
    expect(await decode(chunks, { encoding: 'utf-8' })).toBe('Zoë — ✓ 𝄞');
  });

  it('switches to Windows-1252 when an ASCII file meets a non-UTF-8 byte', async () => {
    const events: unknown[] = [];
    const text = await decode([Buffer.from('plain\n'), iconv.encode('Ré€\n', 'windows-1252')], {
      encoding: 'utf-8',
      onInvalidUtf8: (event) => events.push(event),
    });
    expect(text).toBe('plain\nRé€\n');
    expect(events).toEqual([{ byteOffset: 7, mixed: false }]);
  });

  it('keeps real UTF-8 and reads only the bad bytes as Windows-1252 in a mixed file', async () => {
    const events: { mixed: boolean }[] = [];
    const text = await decode(
      [Buffer.from('Zoë\n'), Buffer.concat([Buffer.from('Ré'), Buffer.from([0xe9]), Buffer.from('!\n')])],
      {
        encoding: 'utf-8',
        onInvalidUtf8: (event) => events.push(event),
      },
    );
    expect(text).toBe('Zoë\nRéé!\n');
    expect(events[0]!.mixed).toBe(true);
  });

  it('decodes UTF-16 split at odd bytes and skips the sep= line', async () => {
    const bytes = iconv.encode('sep=;\na;b\n', 'utf-16le');
    const chunks = [bytes.subarray(0, 3), bytes.subarray(3, 7), bytes.subarray(7)];
    expect(await decode(chunks, { encoding: 'utf-16le', skipChars: 6 })).toBe('a;b\n');
  });

  it('decodeMixed rejects overlong and surrogate sequences', () => {
    expect(decodeMixed(Buffer.from([0xc0, 0xaf]))).toBe('À¯');
    expect(decodeMixed(Buffer.from([0xed, 0xa0, 0x80]))).toBe('í\u00a0€');
  });
});
