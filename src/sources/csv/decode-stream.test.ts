import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { createDecodeStream, markInvalid, type DecodeOptions, type LateDecision } from './decode-stream.js';
import { Utf8Marks } from './utf8-marks.js';

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

  it('decides at the first byte above 127 when the sample was ASCII: Windows-1252 here', async () => {
    const decisions: LateDecision[] = [];
    const text = await decode([Buffer.from('plain\n'), iconv.encode('Ré€\n', 'windows-1252')], {
      encoding: 'utf-8',
      undecided: true,
      onDecided: (decision) => decisions.push(decision),
    });
    expect(text).toBe('plain\nRé€\n');
    expect(decisions).toEqual([
      { encoding: 'windows-1252', byteOffset: 7, census: { characters: 0, invalid: 2 } },
    ]);
  });

  it('decides UTF-8 late when the bytes from there are mostly UTF-8, and marks the stray one', async () => {
    const decisions: LateDecision[] = [];
    const marks = new Utf8Marks();
    const chunks = [
      Buffer.from('plain\n'),
      Buffer.from('Zoë ü 日本 '),
      Buffer.from([0xe9]),
      Buffer.from(' Jürgen\n'),
    ];
    const text = await decode(chunks, {
      encoding: 'utf-8',
      undecided: true,
      startOffset: 3,
      marks,
      onDecided: (decision) => decisions.push(decision),
    });
    expect(text).toBe('plain\nZoë ü 日本 \uFFFD Jürgen\n');
    expect(decisions[0]).toMatchObject({ encoding: 'utf-8', byteOffset: 3 + 8 });
    expect(marks.take(5)).toEqual([{ byteOffset: 3 + 6 + 15, byte: 0xe9 }]);
  });

  it('in a UTF-8 file, a stray byte becomes U+FFFD with its offset; a real U+FFFD is marked as such', async () => {
    const marks = new Utf8Marks();
    const text = await decode(
      [
        Buffer.from('Zoë\n'),
        Buffer.concat([Buffer.from('R\uFFFDé'), Buffer.from([0xe9]), Buffer.from('!\n')]),
      ],
      { encoding: 'utf-8', marks },
    );
    expect(text).toBe('Zoë\nR\uFFFDé\uFFFD!\n');
    expect(marks.take(5)).toEqual([
      { byteOffset: 6, byte: undefined },
      { byteOffset: 11, byte: 0xe9 },
    ]);
  });

  it('marks a character cut short at the end of the file', async () => {
    const marks = new Utf8Marks();
    expect(await decode([Buffer.from('ab\n'), Buffer.from([0xe6, 0x97])], { encoding: 'utf-8', marks })).toBe(
      'ab\n\uFFFD\uFFFD',
    );
    expect(marks.pending).toBe(2);
  });

  it('in a Windows-1252 guess, marks a UTF-8 character (cut across chunks too) as one U+FFFD', async () => {
    const marks = new Utf8Marks();
    const utf8 = Buffer.from('u1,Zoë\nu2,Ábel 日\n', 'utf8');
    const cp1252 = iconv.encode('u3,René\n', 'windows-1252');
    const zoe = utf8.indexOf(0xc3);
    const chunks = [utf8.subarray(0, zoe + 1), utf8.subarray(zoe + 1), cp1252];
    const text = await decode(chunks, { encoding: 'windows-1252', guessed: true, marks });
    expect(text).toBe('u1,Zo\uFFFD\nu2,\uFFFDbel \uFFFD\nu3,René\n');
    expect(marks.take(5)).toEqual([
      { byteOffset: zoe, byte: 0xc3, readAs: 'windows-1252', utf8: 'ë' },
      // Á is 0xC3 0x81, and 0x81 is undefined in Windows-1252: one mark, for the character.
      { byteOffset: utf8.indexOf('Á'), byte: 0xc3, readAs: 'windows-1252', utf8: 'Á' },
      { byteOffset: utf8.indexOf('日'), byte: 0xe6, readAs: 'windows-1252', utf8: '日' },
    ]);
  });

  it('leaves UTF-8 alone when encoding: windows-1252 was set, and reads a late Windows-1252 decision like a guess', async () => {
    const set = new Utf8Marks();
    const mixed = Buffer.concat([
      Buffer.from('Zoë\n'),
      iconv.encode('Renée Lefèvre Muñoz\n', 'windows-1252'),
    ]);
    expect(await decode([mixed], { encoding: 'windows-1252', marks: set })).toBe(
      'ZoÃ«\nRenée Lefèvre Muñoz\n',
    );
    expect(set.pending).toBe(0);

    const late = new Utf8Marks();
    const text = await decode([Buffer.from('plain\n'), mixed], {
      encoding: 'utf-8',
      undecided: true,
      marks: late,
    });
    expect(text).toBe('plain\nZo\uFFFD\nRenée Lefèvre Muñoz\n');
    expect(late.take(5)).toEqual([{ byteOffset: 8, byte: 0xc3, readAs: 'windows-1252', utf8: 'ë' }]);
  });

  it('in a Windows-1252 guess, Windows-1252 text that merely starts like UTF-8 is left alone', async () => {
    const marks = new Utf8Marks();
    // Â then A: no continuation byte; é at the very end of the file: no character cut short.
    const bytes = iconv.encode('ÂA ÃO ð\nRené', 'windows-1252');
    expect(await decode([bytes], { encoding: 'windows-1252', guessed: true, marks })).toBe('ÂA ÃO ð\nRené');
    expect(marks.pending).toBe(0);
  });

  it('decodes UTF-16 split at odd bytes and skips the sep= line', async () => {
    const bytes = iconv.encode('sep=;\na;b\n', 'utf-16le');
    const chunks = [bytes.subarray(0, 3), bytes.subarray(3, 7), bytes.subarray(7)];
    expect(await decode(chunks, { encoding: 'utf-16le', skipChars: 6 })).toBe('a;b\n');
  });

  it('markInvalid rejects overlong and surrogate sequences', () => {
    expect(markInvalid(Buffer.from([0xc0, 0xaf]), 0, undefined)).toBe('\uFFFD\uFFFD');
    expect(markInvalid(Buffer.from([0xed, 0xa0, 0x80]), 0, undefined)).toBe('\uFFFD\uFFFD\uFFFD');
  });
});
