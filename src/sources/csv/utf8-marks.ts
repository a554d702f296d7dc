import type { CsvEncoding } from './detect-encoding.js';

/**
 * One U+FFFD in the decoded text: a byte that was not UTF-8 (or not of the one-byte encoding
 * the file was read in), a UTF-8 character in a file guessed to be Windows-1252, or a U+FFFD
 * the file really holds.
 */
export interface Utf8Mark {
  /** Offset of the byte in the file (BOM included). */
  byteOffset: number;
  /** The byte that was not UTF-8; undefined for a U+FFFD written in the file. */
  byte: number | undefined;
  /** The one-byte encoding the file was read in that leaves `byte` undefined; absent: UTF-8. */
  readAs?: CsvEncoding;
  /**
   * In a file guessed to be Windows-1252: the character a valid multi-byte UTF-8 sequence
   * starting at `byteOffset` stands for (`byte` is its lead), which the text holds as one U+FFFD.
   */
  utf8?: string;
}

/**
 * The U+FFFD characters the decoder put in the text, in file order, so that the record
 * reader can tell which rows hold a byte that is not UTF-8 and where it was. The decoder is
 * at most a few chunks ahead of the reader, so the queue stays short.
 */
export class Utf8Marks {
  private queue: Utf8Mark[] = [];
  private head = 0;

  add(mark: Utf8Mark): void {
    this.queue.push(mark);
  }

  /** Marks not yet taken: while 0, the reader need not look for U+FFFD at all. */
  get pending(): number {
    return this.queue.length - this.head;
  }

  /** The next `count` marks, in order (fewer if the decoder made fewer). */
  take(count: number): Utf8Mark[] {
    const taken = this.queue.slice(this.head, this.head + count);
    this.head += taken.length;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return taken;
  }
}
