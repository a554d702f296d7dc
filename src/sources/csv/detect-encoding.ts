import { isUtf8 } from 'node:buffer';

export type CsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'latin1';

export interface DetectedEncoding {
  encoding: CsvEncoding;
  /** Bytes of byte-order mark to skip at the start of the file. */
  bomLength: number;
  /** How it was decided, for the debug log. */
  reason: 'bom' | 'valid-utf-8' | 'not-utf-8' | 'configured';
}

/**
 * Decides the encoding from the first bytes: a BOM wins; otherwise UTF-8 if the sample is
 * valid UTF-8, else Windows-1252 (what Excel on Windows writes for "CSV"). A multi-byte
 * character cut at the end of the sample is not held against UTF-8.
 */
export function detectEncoding(sample: Buffer, configured?: CsvEncoding): DetectedEncoding {
  const bomLength = bomLengthOf(sample);
  if (configured !== undefined) {
    const bomFits = bomEncoding(sample) === configured;
    return { encoding: configured, bomLength: bomFits ? bomLength : 0, reason: 'configured' };
  }
  const fromBom = bomEncoding(sample);
  if (fromBom !== undefined) return { encoding: fromBom, bomLength, reason: 'bom' };
  const complete = sample.subarray(0, sample.length - incompleteUtf8Tail(sample));
  return isUtf8(complete)
    ? { encoding: 'utf-8', bomLength: 0, reason: 'valid-utf-8' }
    : { encoding: 'windows-1252', bomLength: 0, reason: 'not-utf-8' };
}

function bomEncoding(bytes: Buffer): CsvEncoding | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function bomLengthOf(bytes: Buffer): number {
  const encoding = bomEncoding(bytes);
  if (encoding === 'utf-8') return 3;
  return encoding === undefined ? 0 : 2;
}

/**
 * Number of bytes at the end of `bytes` that start a UTF-8 sequence the buffer cuts short
 * (0 when the buffer ends on a character boundary).
 */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= 3 && back <= end; back++) {
    const byte = bytes[end - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? back : 0;
  }
  return 0;
}
