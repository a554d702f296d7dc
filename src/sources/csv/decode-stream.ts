import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import iconv from 'iconv-lite';
import { incompleteUtf8Tail, type CsvEncoding } from './detect-encoding.js';

export interface DecodeOptions {
  encoding: CsvEncoding;
  /** Decoded characters to drop at the start (BOM already skipped): Excel's `sep=;` line. */
  skipChars?: number;
  /**
   * Called once if a file taken for UTF-8 turns out not to be, past the sample that decided
   * it. `mixed` is true when valid multi-byte UTF-8 came before the bad bytes.
   */
  onInvalidUtf8?: (event: { byteOffset: number; mixed: boolean }) => void;
}

/**
 * Bytes in, strings out (object mode, so papaparse receives text chunks as they are).
 * UTF-8 that breaks later in the file: if nothing but ASCII came before, the file is
 * Windows-1252 after all and the rest is decoded so; if real UTF-8 came before, the file is
 * a mix and only the invalid bytes are read as Windows-1252, so no character is lost.
 */
export function createDecodeStream(options: DecodeOptions): Transform {
  let skip = options.skipChars ?? 0;
  let bytesSeen = 0;
  let mode: 'utf-8' | 'mixed' | 'other' = options.encoding === 'utf-8' ? 'utf-8' : 'other';
  let other = mode === 'other' ? iconv.getDecoder(options.encoding, { stripBOM: false }) : undefined;
  let sawMultibyte = false;
  let pending: Buffer = Buffer.alloc(0);

  const emit = (stream: Transform, text: string): void => {
    if (skip > 0) {
      const dropped = Math.min(skip, text.length);
      text = text.slice(dropped);
      skip -= dropped;
    }
    if (text.length > 0) stream.push(text);
  };

  const decodeUtf8 = (bytes: Buffer): string => {
    if (mode === 'utf-8' && isUtf8(bytes)) {
      const text = bytes.toString('utf8');
      if (!sawMultibyte && text.length !== bytes.length) sawMultibyte = true;
      return text;
    }
    if (mode === 'utf-8') {
      options.onInvalidUtf8?.({ byteOffset: bytesSeen + firstInvalidUtf8(bytes), mixed: sawMultibyte });
      if (!sawMultibyte) {
        mode = 'other';
        other = iconv.getDecoder('windows-1252');
        return other.write(bytes);
      }
      mode = 'mixed';
    }
    return decodeMixed(bytes);
  };

  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      if (other !== undefined) {
        emit(this, other.write(chunk));
      } else {
        const bytes = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
        const keep = incompleteUtf8Tail(bytes);
        pending = keep > 0 ? Buffer.from(bytes.subarray(bytes.length - keep)) : Buffer.alloc(0);
        emit(this, decodeUtf8(bytes.subarray(0, bytes.length - keep)));
        const switched = other as iconv.DecoderStream | undefined; // decodeUtf8 may have switched
        if (switched !== undefined && pending.length > 0) {
          emit(this, switched.write(pending));
          pending = Buffer.alloc(0);
        }
      }
      bytesSeen += chunk.length;
      done();
    },
    flush(done: TransformCallback) {
      if (other !== undefined) emit(this, other.end() ?? '');
      else if (pending.length > 0) emit(this, decodeUtf8(pending));
      done();
    },
  });
}

const CP1252 = iconv.getDecoder('windows-1252');

/** Valid UTF-8 sequences as UTF-8, every other byte as a Windows-1252 character. */
export function decodeMixed(bytes: Uint8Array): string {
  let out = '';
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const length = validSequenceLength(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    out += Buffer.from(bytes.subarray(start, i)).toString('utf8') + CP1252.write(Buffer.from([bytes[i]!]));
    i += 1;
    start = i;
  }
  return out + Buffer.from(bytes.subarray(start)).toString('utf8');
}

function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const length = validSequenceLength(bytes, i);
    if (length === 0) return i;
    i += length;
  }
  return bytes.length;
}

/** Length of the valid UTF-8 sequence at `i`, or 0 (overlongs and surrogates are invalid). */
function validSequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return 1;
  if (b0 >= 0xc2 && b0 <= 0xdf) return isContinuation(bytes, i + 1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const b1 = bytes[i + 1] ?? 0;
    if ((b0 === 0xe0 && b1 < 0xa0) || (b0 === 0xed && b1 > 0x9f)) return 0;
    return isContinuation(bytes, i + 1) && isContinuation(bytes, i + 2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const b1 = bytes[i + 1] ?? 0;
    if ((b0 === 0xf0 && b1 < 0x90) || (b0 === 0xf4 && b1 > 0x8f)) return 0;
    return isContinuation(bytes, i + 1) && isContinuation(bytes, i + 2) && isContinuation(bytes, i + 3)
      ? 4
      : 0;
  }
  return 0;
}

/** A UTF-8 continuation byte (`10xxxxxx`); past the end is not one. */
function isContinuation(bytes: Uint8Array, at: number): boolean {
  return ((bytes[at] ?? 0) & 0xc0) === 0x80;
}
