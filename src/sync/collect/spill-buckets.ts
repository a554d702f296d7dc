import { createReadStream } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface SpillOptions {
  /** Folder the spill's own temporary folder is made in. @defaultValue the system's temp folder */
  dir?: string;
  /** @defaultValue 256 */
  buckets?: number;
  /** Characters of JSON held in memory before all of it goes to files. @defaultValue 8 MiB */
  memoryChars?: number;
  /**
   * Characters of JSON a bucket may hold when it is drained; a bucket past it is first
   * split into smaller ones by another hash of its groups. @defaultValue 4 MiB
   */
  bucketChars?: number;
}

/** Splits of a split bucket at most: a bucket of one group cannot be made smaller. */
const MAX_DEPTH = 4;
/** Buckets a bucket is split into at most. */
const MAX_SPLIT = 1024;

/**
 * Values grouped by a string, held until every one has come in, in bounded memory: each
 * goes to one of N buckets by a hash of its group, as a line (its group, then its JSON);
 * while they are few, the lines stay in memory, and once they pass `memoryChars` every
 * bucket is appended to its file. Draining reads one bucket at a time, so every value of a
 * group is in the same bucket. A bucket larger than `bucketChars` (many values: N is fixed
 * before the values are counted) is first read line by line into buckets of its own, by
 * another hash, so memory holds at most about `bucketChars` of values whatever their
 * number (docs/sync-engine.md, "Memory").
 */
export class SpillBuckets<T> {
  private readonly lines: string[][];
  private readonly onDisk: boolean[];
  /** Characters each bucket holds, in memory and in its file. */
  private readonly sizes: number[];
  private held = 0;
  private folder: string | undefined;
  private readonly memoryChars: number;
  private readonly bucketChars: number;

  constructor(
    private readonly options: SpillOptions = {},
    /** Which hash picks the bucket: each split uses the next one. */
    private readonly depth = 0,
  ) {
    const count = options.buckets ?? 256;
    this.lines = Array.from({ length: count }, () => []);
    this.onDisk = Array.from({ length: count }, () => false);
    this.sizes = Array.from({ length: count }, () => 0);
    this.memoryChars = options.memoryChars ?? 8 * 1024 * 1024;
    this.bucketChars = options.bucketChars ?? 4 * 1024 * 1024;
  }

  async add(group: string, value: T): Promise<void> {
    // JSON copies every string: a value cut from a source's chunk no longer keeps the chunk
    // alive. The group's JSON has no tab: the first one ends it.
    const encoded = JSON.stringify(group);
    await this.addLine(encoded, `${encoded}\t${JSON.stringify(value)}`);
  }

  /** Every bucket's values, one bucket at a time, each bucket's in the order they came. */
  async *drain(): AsyncGenerator<T[]> {
    for (let bucket = 0; bucket < this.lines.length; bucket++) {
      const lines = this.lines[bucket]!;
      this.lines[bucket] = [];
      const file = this.onDisk[bucket] ? this.fileOf(bucket) : undefined;
      this.onDisk[bucket] = false;
      const size = this.sizes[bucket]!;
      this.sizes[bucket] = 0;
      if (size > this.bucketChars && this.depth < MAX_DEPTH) {
        yield* this.split(file, lines, size);
        continue;
      }
      const values: T[] = [];
      if (file !== undefined) {
        const text = await readFile(file, 'utf8');
        await rm(file, { force: true });
        for (const line of text.split('\n')) if (line !== '') values.push(valueOf<T>(line));
      }
      for (const line of lines) values.push(valueOf<T>(line));
      if (values.length > 0) yield values;
    }
    this.held = 0;
  }

  /** Removes the files, drained or not. */
  async dispose(): Promise<void> {
    if (this.folder !== undefined && this.depth === 0)
      await rm(this.folder, { recursive: true, force: true });
    this.folder = undefined;
  }

  /** A line whose group is `encoded` (its JSON). */
  private async addLine(encoded: string, line: string): Promise<void> {
    const bucket = bucketOf(encoded, this.lines.length, this.depth);
    this.lines[bucket]!.push(line);
    this.sizes[bucket]! += line.length + 1;
    this.held += line.length;
    if (this.held > this.memoryChars) await this.flush();
  }

  /** A bucket too large to hold, read line by line into smaller ones and drained from them. */
  private async *split(
    file: string | undefined,
    lines: readonly string[],
    size: number,
  ): AsyncGenerator<T[]> {
    const folder = await this.ownFolder();
    const parts = Math.min(MAX_SPLIT, Math.ceil((2 * size) / this.bucketChars));
    const smaller = new SpillBuckets<T>(
      { ...this.options, buckets: parts, dir: await mkdtemp(join(folder, 'split-')) },
      this.depth + 1,
    );
    if (file !== undefined) {
      const reader = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
      for await (const line of reader) if (line !== '') await smaller.addLine(groupOf(line), line);
      await rm(file, { force: true });
    }
    for (const line of lines) await smaller.addLine(groupOf(line), line);
    try {
      yield* smaller.drain();
    } finally {
      await rm(smaller.options.dir!, { recursive: true, force: true });
    }
  }

  private async ownFolder(): Promise<string> {
    if (this.folder !== undefined) return this.folder;
    // A split's folder is the one its parent made for it; the first level makes its own.
    this.folder =
      this.depth === 0
        ? await mkdtemp(join(this.options.dir ?? tmpdir(), 'evsync-spill-'))
        : this.options.dir!;
    return this.folder;
  }

  private async flush(): Promise<void> {
    await this.ownFolder();
    for (let bucket = 0; bucket < this.lines.length; bucket++) {
      const lines = this.lines[bucket]!;
      if (lines.length === 0) continue;
      await appendFile(this.fileOf(bucket), `${lines.join('\n')}\n`);
      this.onDisk[bucket] = true;
      this.lines[bucket] = [];
    }
    this.held = 0;
  }

  private fileOf(bucket: number): string {
    return join(this.folder!, `${bucket}.ndjson`);
  }
}

/** The group's JSON a spilled line starts with. */
function groupOf(line: string): string {
  return line.slice(0, line.indexOf('\t'));
}

function valueOf<T>(line: string): T {
  return JSON.parse(line.slice(line.indexOf('\t') + 1)) as T;
}

/**
 * FNV-1a over UTF-16 code units: cheap, and spreads e-mails evenly enough. Each depth
 * starts from another basis, so that a split spreads what one bucket held.
 */
function bucketOf(group: string, buckets: number, depth: number): number {
  let hash = (0x811c9dc5 ^ Math.imul(depth, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < group.length; i++) {
    hash ^= group.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // A final mix: FNV's low bits alone follow the last characters too closely.
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  hash ^= hash >>> 12;
  return (hash >>> 0) % buckets;
}
