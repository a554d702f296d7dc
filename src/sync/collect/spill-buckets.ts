import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SpillOptions {
  /** Folder the spill's own temporary folder is made in. @defaultValue the system's temp folder */
  dir?: string;
  /** @defaultValue 64 */
  buckets?: number;
  /** Characters of JSON held in memory before all of it goes to files. @defaultValue 8 MiB */
  memoryChars?: number;
}

/**
 * Values grouped by a string, held until every one has come in, in bounded memory: each
 * goes to one of N buckets by a hash of its group, as a JSON line; while they are few, the
 * lines stay in memory, and once they pass `memoryChars` every bucket is appended to its
 * file. Draining reads one bucket at a time, so every value of a group is in the same
 * bucket, and memory holds about 1/N of the values (docs/sync-engine.md, "Memory").
 */
export class SpillBuckets<T> {
  private readonly lines: string[][];
  private readonly onDisk: boolean[];
  private held = 0;
  private folder: string | undefined;
  private readonly memoryChars: number;

  constructor(private readonly options: SpillOptions = {}) {
    const count = options.buckets ?? 64;
    this.lines = Array.from({ length: count }, () => []);
    this.onDisk = Array.from({ length: count }, () => false);
    this.memoryChars = options.memoryChars ?? 8 * 1024 * 1024;
  }

  async add(group: string, value: T): Promise<void> {
    // JSON copies every string: a value cut from a source's chunk no longer keeps the chunk alive.
    const line = JSON.stringify(value);
    this.lines[bucketOf(group, this.lines.length)]!.push(line);
    this.held += line.length;
    if (this.held > this.memoryChars) await this.flush();
  }

  /** Every bucket's values, one bucket at a time, each bucket's in the order they came. */
  async *drain(): AsyncGenerator<T[]> {
    for (let bucket = 0; bucket < this.lines.length; bucket++) {
      const lines = this.lines[bucket]!;
      this.lines[bucket] = [];
      let text = '';
      if (this.onDisk[bucket]) {
        const file = this.fileOf(bucket);
        text = await readFile(file, 'utf8');
        await rm(file, { force: true });
        this.onDisk[bucket] = false;
      }
      const values: T[] = [];
      for (const line of text.split('\n')) if (line !== '') values.push(JSON.parse(line) as T);
      for (const line of lines) values.push(JSON.parse(line) as T);
      if (values.length > 0) yield values;
    }
    this.held = 0;
  }

  /** Removes the files, drained or not. */
  async dispose(): Promise<void> {
    if (this.folder !== undefined) await rm(this.folder, { recursive: true, force: true });
    this.folder = undefined;
  }

  private async flush(): Promise<void> {
    this.folder ??= await mkdtemp(join(this.options.dir ?? tmpdir(), 'evsync-spill-'));
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

/** FNV-1a over UTF-16 code units: cheap, and spreads e-mails evenly enough. */
function bucketOf(group: string, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < group.length; i++) {
    hash ^= group.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % buckets;
}
