import type { Logger } from '../../log/logger.js';

/**
 * What the sources said while a run read them (a guessed encoding, columns the mapping reads
 * that a source lacks), said once for the run: a job of twelve CSV files logged twelve lines
 * that said the same thing.
 */
export class ReadNotices {
  /** A note's text → the sources it is about, in reading order. */
  private readonly notes = new Map<string, string[]>();
  private readonly missing: Array<{ source: string; mapping: string; columns: string[] }> = [];
  private readonly unmapped: Array<{ source: string; mapping: string; notes: string[] }> = [];

  /** What `source.notes()` said of one source once it was read. */
  addNotes(source: string, notes: readonly string[]): void {
    for (const note of notes) {
      const sources = this.notes.get(note) ?? [];
      sources.push(source);
      this.notes.set(note, sources);
    }
  }

  /** The columns (each with its aliases) a source lacks of those its mapping reads. */
  addMissing(source: string, mapping: string, missing: readonly string[][]): void {
    if (missing.length === 0) return;
    this.missing.push({ source, mapping, columns: missing.map((aliases) => aliases.join('|')) });
  }

  /**
   * What becomes of the source columns no param reads (`unmappedColumnsNotes`), said once per
   * step: a registration's own questions must not vanish in silence.
   */
  addUnmapped(source: string, mapping: string, notes: readonly string[]): void {
    if (notes.length === 0) return;
    this.unmapped.push({ source, mapping, notes: [...notes] });
  }

  /** At most three lines: how the sources were read, what they lack, what nothing reads. */
  log(logger: Logger | undefined): void {
    if (!logger) return;
    if (this.notes.size > 0) {
      const read = [...this.notes].map(([note, sources]) => `${sources.join(', ')}: ${note}`);
      logger.info(
        { sources: [...new Set([...this.notes.values()].flat())].length },
        `how the sources were read: ${read.join('; ')}`,
      );
    }
    if (this.missing.length > 0) {
      logger.info(
        {
          missing: Object.fromEntries(
            this.missing.map((m) => [`${m.source} (${m.mapping})`, m.columns.join(', ')]),
          ),
        },
        `${this.missing.length} source${this.missing.length === 1 ? ' lacks' : 's lack'} columns the mapping reads; their values read as empty`,
      );
    }
    for (const { source, mapping, notes } of this.unmapped)
      for (const note of notes) logger.info({ source, mapping }, `${source} (${mapping}): ${note}`);
  }
}
