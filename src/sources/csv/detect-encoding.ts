import { isUtf8 } from 'node:buffer';

/**
 * The encodings `encoding:` may name, with the name a person reads. Beyond the ones a guess
 * can give (UTF-8, UTF-16 by their BOM, Windows-1252), the code pages Excel writes "CSV" in
 * on Windows set to another language, and the legacy encodings of East Asian exports.
 */
const ENCODING_NAMES = {
  'utf-8': 'UTF-8',
  'utf-16le': 'UTF-16LE',
  'utf-16be': 'UTF-16BE',
  'windows-1252': 'Windows-1252',
  latin1: 'Latin-1',
  'iso-8859-15': 'ISO-8859-15',
  'windows-1250': 'Windows-1250 (Central European)',
  'iso-8859-2': 'ISO-8859-2 (Central European)',
  'windows-1251': 'Windows-1251 (Cyrillic)',
  'koi8-r': 'KOI8-R (Cyrillic)',
  'windows-1253': 'Windows-1253 (Greek)',
  'windows-1254': 'Windows-1254 (Turkish)',
  'windows-1257': 'Windows-1257 (Baltic)',
  macintosh: 'Mac OS Roman',
  shift_jis: 'Shift_JIS (Japanese)',
  'euc-jp': 'EUC-JP (Japanese)',
  gb18030: 'GB18030 (Chinese)',
  big5: 'Big5 (Chinese)',
  'euc-kr': 'EUC-KR (Korean)',
} as const;

export type CsvEncoding = keyof typeof ENCODING_NAMES;

export const CSV_ENCODINGS = Object.keys(ENCODING_NAMES) as [CsvEncoding, ...CsvEncoding[]];

/** Other spellings people write for them (`cp1250`, `UTF8`, `ISO-8859-1`, `sjis`). */
const ENCODING_ALIASES: Readonly<Record<string, CsvEncoding>> = {
  utf8: 'utf-8',
  'utf-16': 'utf-16le',
  'iso-8859-1': 'latin1',
  'latin-1': 'latin1',
  cp1252: 'windows-1252',
  cp1250: 'windows-1250',
  cp1251: 'windows-1251',
  cp1253: 'windows-1253',
  cp1254: 'windows-1254',
  cp1257: 'windows-1257',
  latin2: 'iso-8859-2',
  'shift-jis': 'shift_jis',
  sjis: 'shift_jis',
  cp932: 'shift_jis',
  gbk: 'gb18030',
  gb2312: 'gb18030',
  mac: 'macintosh',
};

/** The encoding `name` stands for, written in any case or by an alias; undefined if none. */
export function csvEncodingNamed(name: string): CsvEncoding | undefined {
  const lower = name.trim().toLowerCase();
  if (lower in ENCODING_NAMES) return lower as CsvEncoding;
  return ENCODING_ALIASES[lower];
}

/**
 * Encodings of one byte a character: a character of the decoded text stands at the offset of
 * its byte, so a byte the encoding leaves undefined can be named where it is.
 */
export function isSingleByte(encoding: CsvEncoding): boolean {
  return !['utf-8', 'utf-16le', 'utf-16be', 'shift_jis', 'euc-jp', 'gb18030', 'big5', 'euc-kr'].includes(
    encoding,
  );
}

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
  /**
   * Under a Windows-1252 guess: bytes that read as `£ ¥ ³ ¹ Ÿ` beside a letter, where
   * Windows-1250 has `Ł Ą ł ą ź` (a Polish export saved by Excel); 0 when none.
   */
  centralEuropean?: number;
  /**
   * Under a Windows-1252 guess: bytes that read as `‚ ƒ „ † ‡ ˆ ‰ ˜`, which no name
   * holds and which are first or second bytes of Shift_JIS, GB18030, Big5 and EUC-KR
   * characters; 0 when none.
   */
  doubleByte?: number;
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
    : {
        encoding: 'windows-1252',
        bomLength: 0,
        reason: 'not-utf-8',
        census,
        centralEuropean: centralEuropeanSigns(complete),
        doubleByte: countBytes(complete, DOUBLE_BYTE_SIGNS),
      };
}

/** Windows-1250's `Ł Ą ł ą ź`, which Windows-1252 reads as signs no name holds: `£ ¥ ³ ¹ Ÿ`. */
const CENTRAL_EUROPEAN_LETTERS = new Set([0xa3, 0xa5, 0xb3, 0xb9, 0x9f]);

/** Bytes Windows-1252 reads as `‚ ƒ „ † ‡ ˆ ‰ ˜`. */
const DOUBLE_BYTE_SIGNS = new Set([0x82, 0x83, 0x84, 0x86, 0x87, 0x88, 0x89, 0x98]);

function countBytes(bytes: Uint8Array, which: ReadonlySet<number>): number {
  let count = 0;
  for (const byte of bytes) if (which.has(byte)) count += 1;
  return count;
}

/** How many of those bytes stand beside a letter (ASCII, or a byte Windows-1250 reads as one). */
function centralEuropeanSigns(bytes: Uint8Array): number {
  const letter = (byte: number | undefined): boolean =>
    byte !== undefined && (((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a) || byte >= 0xc0);
  let count = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (CENTRAL_EUROPEAN_LETTERS.has(bytes[i]!) && (letter(bytes[i - 1]) || letter(bytes[i + 1]))) count += 1;
  }
  return count;
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

export function encodingName(encoding: CsvEncoding): string {
  return ENCODING_NAMES[encoding];
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
    case 'not-utf-8': {
      const signs = detected.centralEuropean ?? 0;
      const central =
        signs > 0
          ? `; ${plural(signs, 'byte')} read as £ ¥ ³ ¹ Ÿ beside letters, where Windows-1250 (Central European) has Ł Ą ł ą ź: if Polish or Czech names look wrong, set encoding: windows-1250`
          : '';
      const doubleByte =
        (detected.doubleByte ?? 0) > 0
          ? `; ${plural(detected.doubleByte!, 'byte')} read as ‚ ƒ „ † ‡ ˆ ‰ ˜, which names do not hold: if the file is Japanese, Chinese or Korean, set encoding: shift_jis, gb18030, big5 or euc-kr`
          : '';
      // Those UTF-8 characters fail their rows (CSV_MIXED_ENCODING): say why before they do.
      const mixed =
        (detected.census?.characters ?? 0) > 0
          ? '; the rows holding UTF-8 characters are not read, for the file mixes the two encodings'
          : '';
      return `read as Windows-1252 (guessed): ${sample} ${wholeFile ? 'has' : 'have'} ${counts(detected.census)}${mixed}${central}${doubleByte}; set encoding: in the source to choose`;
    }
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
