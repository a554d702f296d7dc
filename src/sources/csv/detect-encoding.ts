import { isUtf8 } from 'node:buffer';

export type CsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'latin1';

/** How the bytes of a stretch of file look as UTF-8. */
export interface Utf8Census {
  /** Valid multi-byte UTF-8 characters (`ü`, `日`). */
  characters: number;
  /** Bytes that are not part of a valid UTF-8 character. */
  invalid: number;
}

export interface DetectedEncoding {
  encoding: CsvEncoding;
  /** Bytes of byte-order mark to skip at the start of the file. */
  bomLength: number;
  /**
   * How it was decided: `ascii` means the sample holds no byte above 127, which UTF-8 and
   * Windows-1252 read alike, so the first other byte decides (see `createDecodeStream`).
   */
  reason: 'bom' | 'configured' | 'valid-utf-8' | 'mostly-utf-8' | 'not-utf-8' | 'ascii';
  /** The sample's census, when the sample decided. */
  census?: Utf8Census;
}

/**
 * Decides the encoding from the first bytes: a BOM wins; otherwise the bytes above 127
 * decide. UTF-8 when its characters are at least as many as the bytes that are not UTF-8
 * (a UTF-8 export with a stray Latin-1 byte is still UTF-8, and that byte is its row's
 * problem); Windows-1252 (what Excel on Windows writes for "CSV") when they are fewer. A
 * multi-byte character cut at the end of the sample is not held against UTF-8, unless the
 * sample is the `wholeFile`.
 */
export function detectEncoding(
  sample: Buffer,
  configured?: CsvEncoding,
  wholeFile = false,
): DetectedEncoding {
  const bomLength = bomLengthOf(sample);
  if (configured !== undefined) {
    const bomFits = bomEncoding(sample) === configured;
    return { encoding: configured, bomLength: bomFits ? bomLength : 0, reason: 'configured' };
  }
  const fromBom = bomEncoding(sample);
  if (fromBom !== undefined) return { encoding: fromBom, bomLength, reason: 'bom' };
  // A character cut at the end of the file, unlike one cut at the end of the sample, is broken.
  const complete = wholeFile ? sample : sample.subarray(0, sample.length - incompleteUtf8Tail(sample));
  if (isUtf8(complete)) {
    const census = utf8Census(complete);
    return census.characters === 0
      ? { encoding: 'utf-8', bomLength: 0, reason: 'ascii' }
      : { encoding: 'utf-8', bomLength: 0, reason: 'valid-utf-8', census };
  }
  const census = utf8Census(complete);
  return looksLikeUtf8(census)
    ? { encoding: 'utf-8', bomLength: 0, reason: 'mostly-utf-8', census }
    : { encoding: 'windows-1252', bomLength: 0, reason: 'not-utf-8', census };
}

/** The rule of {@link detectEncoding}, for a stretch with at least one byte above 127. */
export function looksLikeUtf8(census: Utf8Census): boolean {
  return census.characters > 0 && census.characters >= census.invalid;
}

/** Counts UTF-8 characters and stray bytes (bytes past a cut at the end count as stray). */
export function utf8Census(bytes: Uint8Array): Utf8Census {
  let characters = 0;
  let invalid = 0;
  let i = 0;
  while (i < bytes.length) {
    if (bytes[i]! < 0x80) {
      i += 1;
      continue;
    }
    const length = validUtf8Length(bytes, i);
    if (length === 0) {
      invalid += 1;
      i += 1;
    } else {
      characters += 1;
      i += length;
    }
  }
  return { characters, invalid };
}

/** Length of the valid UTF-8 sequence at `i`, or 0 (overlongs and surrogates are invalid). */
export function validUtf8Length(bytes: Uint8Array, i: number): number {
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

const NAMES: Record<CsvEncoding, string> = {
  'utf-8': 'UTF-8',
  'utf-16le': 'UTF-16LE',
  'utf-16be': 'UTF-16BE',
  'windows-1252': 'Windows-1252',
  latin1: 'Latin-1',
};

export function encodingName(encoding: CsvEncoding): string {
  return NAMES[encoding];
}

/** Which encoding a guess chose and why, for a person (undefined when `encoding:` chose it). */
export function describeDetection(
  detected: DetectedEncoding,
  sampleLength: number,
  wholeFile: boolean,
): string | undefined {
  const name = encodingName(detected.encoding);
  const sample = wholeFile ? 'the file' : `the first ${Math.round(sampleLength / 1024)} KB`;
  const counts = (census: Utf8Census | undefined): string =>
    `${plural(census?.characters ?? 0, 'UTF-8 character')} and ${plural(census?.invalid ?? 0, 'byte')} that ${census?.invalid === 1 ? 'is' : 'are'} not UTF-8`;
  switch (detected.reason) {
    case 'configured':
      return undefined;
    case 'bom':
      return `read as ${name}: the file starts with its byte-order mark`;
    case 'ascii':
      return `read as UTF-8: ${sample} ${wholeFile ? 'has' : 'have'} no byte above 127, which UTF-8 and Windows-1252 read alike; set encoding: in the source to choose`;
    case 'valid-utf-8':
      return `read as UTF-8 (guessed): no byte-order mark, and ${sample} ${wholeFile ? 'is' : 'are'} valid UTF-8; set encoding: in the source to choose`;
    case 'mostly-utf-8':
      return `read as UTF-8 (guessed): ${sample} ${wholeFile ? 'has' : 'have'} ${counts(detected.census)}, so those bytes are their rows' problem; set encoding: in the source to choose`;
    case 'not-utf-8':
      return `read as Windows-1252 (guessed): ${sample} ${wholeFile ? 'has' : 'have'} ${counts(detected.census)}; set encoding: in the source to choose`;
  }
}

function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en')} ${noun}${count === 1 ? '' : 's'}`;
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
