import { isAscii, isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import iconv from 'iconv-lite';
import {
  incompleteUtf8Tail,
  isSingleByte,
  looksLikeUtf8,
  utf8Census,
  validUtf8Length,
  type CsvEncoding,
  type Utf8Census,
} from './detect-encoding.js';
import { markSingleByte } from './mark-single-byte.js';
import type { Utf8Marks } from './utf8-marks.js';

/** A decision taken past the sample: the file was ASCII up to `byteOffset`. */
export interface LateDecision {
  encoding: 'utf-8' | 'windows-1252';
  byteOffset: number;
  /** What the bytes from `byteOffset` on (up to {@link DECISION_BYTES}) looked like. */
  census: Utf8Census;
}

export interface DecodeOptions {
  encoding: CsvEncoding;
  /**
   * The sample was plain ASCII: UTF-8 until the first byte above 127, then the bytes from
   * there decide between UTF-8 and Windows-1252 (nothing decoded before depends on it).
   */
  undecided?: boolean;
  /** Decoded characters to drop at the start (BOM already skipped): Excel's `sep=;` line. */
  skipChars?: number;
  /** File offset of the first byte the stream receives (the BOM's length). @defaultValue 0 */
  startOffset?: number;
  /** Where each U+FFFD put in the text for a byte that is not UTF-8 is recorded. */
  marks?: Utf8Marks;
  /**
   * `encoding` is Windows-1252 as guessed, not as `encoding:` set: a valid multi-byte UTF-8
   * character in it is marked (the file mixes the two), as a late Windows-1252 decision's are.
   */
  guessed?: boolean;
  onDecided?: (decision: LateDecision) => void;
}

/**
 * How many bytes from the first byte above 127 a late decision looks at: enough for a few
 * rows, so that one accented name cut by a chunk boundary does not decide alone.
 */
export const DECISION_BYTES = 16_384;

const REPLACEMENT = Buffer.from('\uFFFD', 'utf8');

/**
 * Bytes in, strings out (object mode, so papaparse receives text chunks as they are). In
 * UTF-8, a byte that is not UTF-8 becomes U+FFFD and is recorded in `marks` with its file
 * offset, so that its row is reported and the rest of the file is read as it is; a
 * character split across chunks is held until its last byte comes.
 */
export function createDecodeStream(options: DecodeOptions): Transform {
  let skip = options.skipChars ?? 0;
  let mode: 'utf-8' | 'undecided' | 'other' =
    options.encoding !== 'utf-8' ? 'other' : options.undecided ? 'undecided' : 'utf-8';
  let other = mode === 'other' ? iconv.getDecoder(options.encoding, { stripBOM: false }) : undefined;
  /** The one-byte encoding `other` decodes, whose undefined bytes are marked; else undefined. */
  let marksIn: CsvEncoding | undefined =
    mode === 'other' && isSingleByte(options.encoding) ? options.encoding : undefined;
  /** A Windows-1252 guess: UTF-8 characters in it are their rows' problem (`markSingleByte`). */
  let findUtf8 = mode === 'other' && options.encoding === 'windows-1252' && options.guessed === true;
  /** Undecoded bytes: a cut character, or the bytes a late decision waits for. */
  let pending: Buffer = Buffer.alloc(0);
  /** File offset of `pending[0]`, or of the next chunk when nothing is pending. */
  let offset = options.startOffset ?? 0;

  const emit = (stream: Transform, text: string): void => {
    if (skip > 0) {
      const dropped = Math.min(skip, text.length);
      text = text.slice(dropped);
      skip -= dropped;
    }
    if (text.length > 0) stream.push(text);
  };

  /**
   * Decodes `bytes` (starting at `offset`) in the other encoding. In a one-byte encoding a
   * byte it leaves undefined became U+FFFD at that byte's place: recorded like a byte that is
   * not UTF-8, so that its row is reported instead of sending a name with a "�" in it. In a
   * Windows-1252 guess, so is a UTF-8 character; one cut at the end waits for the next chunk
   * (at most 3 bytes; the one-byte decoder keeps no state, so holding them back is safe).
   */
  const decodeOther = (stream: Transform, bytes: Buffer, last: boolean): void => {
    const keep = findUtf8 && !last ? incompleteUtf8Tail(bytes) : 0;
    const whole = keep > 0 ? bytes.subarray(0, bytes.length - keep) : bytes;
    let text = other!.write(whole);
    if (marksIn !== undefined && options.marks !== undefined) {
      text = markSingleByte(text, whole, offset, marksIn, options.marks, findUtf8);
    }
    offset += whole.length;
    pending = keep > 0 ? Buffer.from(bytes.subarray(bytes.length - keep)) : Buffer.alloc(0);
    emit(stream, text);
  };

  /** Decodes `bytes` (starting at `offset`) as UTF-8, keeping a cut character unless `last`. */
  const decodeUtf8 = (stream: Transform, bytes: Buffer, last: boolean): void => {
    const keep = last ? 0 : incompleteUtf8Tail(bytes);
    const whole = keep > 0 ? bytes.subarray(0, bytes.length - keep) : bytes;
    emit(
      stream,
      isUtf8(whole) ? textOf(whole, offset, options.marks) : markInvalid(whole, offset, options.marks),
    );
    offset += whole.length;
    pending = keep > 0 ? Buffer.from(bytes.subarray(bytes.length - keep)) : Buffer.alloc(0);
  };

  const decideAndDecode = (stream: Transform, bytes: Buffer, last: boolean): void => {
    const census = utf8Census(
      bytes.subarray(0, last ? bytes.length : bytes.length - incompleteUtf8Tail(bytes)),
    );
    const encoding = looksLikeUtf8(census) ? 'utf-8' : 'windows-1252';
    options.onDecided?.({ encoding, byteOffset: offset, census });
    if (encoding === 'utf-8') {
      mode = 'utf-8';
      decodeUtf8(stream, bytes, last);
    } else {
      mode = 'other';
      other = iconv.getDecoder('windows-1252');
      marksIn = 'windows-1252';
      findUtf8 = true;
      pending = Buffer.alloc(0);
      decodeOther(stream, bytes, last);
    }
  };

  const undecided = (stream: Transform, bytes: Buffer, last: boolean): void => {
    if (pending.length === 0) {
      // Still ASCII so far: what comes before the first byte above 127 reads alike either way.
      if (isAscii(bytes)) {
        emit(stream, bytes.toString('latin1'));
        offset += bytes.length;
        return;
      }
      const first = bytes.findIndex((byte) => byte >= 0x80);
      emit(stream, bytes.toString('latin1', 0, first));
      offset += first;
      bytes = bytes.subarray(first);
    }
    if (bytes.length < DECISION_BYTES && !last) pending = Buffer.from(bytes);
    else decideAndDecode(stream, bytes, last);
  };

  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      const bytes = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      if (mode === 'other') decodeOther(this, bytes, false);
      else if (mode === 'undecided') undecided(this, bytes, false);
      else decodeUtf8(this, bytes, false);
      done();
    },
    flush(done: TransformCallback) {
      if (mode === 'other') {
        if (pending.length > 0) decodeOther(this, pending, true);
        emit(this, other!.end() ?? '');
      } else if (mode === 'undecided' && pending.length > 0) undecided(this, pending, true);
      else if (pending.length > 0) decodeUtf8(this, pending, true);
      done();
    },
  });
}

/** Valid UTF-8 as text; a U+FFFD the file really holds is recorded so the marks stay in step. */
function textOf(bytes: Buffer, offset: number, marks: Utf8Marks | undefined): string {
  if (marks !== undefined) {
    for (let at = bytes.indexOf(REPLACEMENT); at !== -1; at = bytes.indexOf(REPLACEMENT, at + 3)) {
      marks.add({ byteOffset: offset + at, byte: undefined });
    }
  }
  return bytes.toString('utf8');
}

/** Valid UTF-8 sequences as UTF-8, every other byte as U+FFFD, recorded in `marks`. */
export function markInvalid(bytes: Uint8Array, offset: number, marks: Utf8Marks | undefined): string {
  let out = '';
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const length = validUtf8Length(bytes, i);
    if (length > 0) {
      if (length === 3 && bytes[i] === 0xef && bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd) {
        marks?.add({ byteOffset: offset + i, byte: undefined });
      }
      i += length;
      continue;
    }
    out += `${Buffer.from(bytes.subarray(start, i)).toString('utf8')}\uFFFD`;
    marks?.add({ byteOffset: offset + i, byte: bytes[i] });
    i += 1;
    start = i;
  }
  return out + Buffer.from(bytes.subarray(start)).toString('utf8');
}
