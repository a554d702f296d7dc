import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { extname } from 'node:path';
import { CODE } from '../../errors/codes.js';
import { redactUrl } from '../../log/redaction.js';
import { csvLine } from '../../report/csv-cell.js';
import { openReportFile, reportUnwritable } from '../../report/open-report-file.js';
import { MappingError } from '../mapping-error.js';
import type { MappedItem } from '../mapped-item.js';
import { DUPLICATE_CODE } from './validation-summary.js';

const COLUMNS = ['mapping', 'source', 'row', 'line', 'status', 'field', 'param', 'code', 'message'] as const;
type ReportLine = Record<(typeof COLUMNS)[number], string | number>;

/**
 * The `--report` file of `evsync validate`: one line per problem of every row that is not
 * sent as it is (invalid, skipped, duplicate, or sent without a field: `warning`), streamed to disk as rows come. CSV (cells
 * that a spreadsheet would run as formulas neutralised) or JSON, chosen by the extension.
 */
export class ValidationReport {
  private readonly format: 'csv' | 'json';
  private readonly out: WriteStream;
  private lines = 0;
  private failed: Error | undefined;

  constructor(readonly file: string) {
    const extension = extname(file).toLowerCase();
    if (extension !== '.csv' && extension !== '.json') {
      throw new MappingError(`The report file ${file} must end in .csv or .json`, {
        code: CODE.EVSYNC_USAGE,
      });
    }
    this.format = extension === '.csv' ? 'csv' : 'json';
    // Opened here, before a row is read: a report that cannot be written is a usage error
    // now, not a crash after the whole source was read.
    this.out = createWriteStream(file, { fd: openReportFile(file) });
    this.out.on('error', (error) => (this.failed ??= error));
    this.write(this.format === 'csv' ? csvLine(COLUMNS) : '[\n');
  }

  add(mapping: string, item: MappedItem): void {
    // A schedule URL's token or password never reaches the file, whoever built the origin.
    const base = {
      mapping,
      source: redactUrl(item.origin.source),
      row: item.origin.row,
      line: item.origin.line ?? '',
    };
    if ((item.type === 'intents' || item.type === 'duplicate') && item.warnings !== undefined) {
      for (const warning of item.warnings) {
        this.line({
          ...base,
          status: 'warning',
          field: warning.field,
          param: warning.param ?? '',
          code: warning.code,
          message: warning.message,
        });
      }
    }
    switch (item.type) {
      case 'invalid':
        for (const problem of item.problems) {
          this.line({
            ...base,
            status: 'invalid',
            field: problem.field,
            param: problem.param ?? '',
            code: problem.code,
            message: problem.message,
          });
        }
        break;
      case 'skipped':
        this.line({
          ...base,
          status: 'skipped',
          field: '',
          param: '',
          code: CODE.SKIPPED,
          message: item.reason,
        });
        break;
      case 'duplicate':
        this.line({
          ...base,
          status: 'duplicate',
          field: item.field,
          param: '',
          code: DUPLICATE_CODE[item.policy],
          message: item.message,
        });
        break;
      default:
        break;
    }
  }

  /** Finishes the file; a write error (disk full, no permission) surfaces here. */
  async close(): Promise<number> {
    if (!this.failed) {
      this.write(this.format === 'csv' ? '' : this.lines === 0 ? ']\n' : '\n]\n');
      await new Promise<void>((resolve) =>
        this.out.end((error?: Error | null) => {
          if (error) this.failed ??= error;
          resolve();
        }),
      );
    }
    if (this.failed) {
      this.out.destroy();
      throw reportUnwritable(this.file, this.failed);
    }
    return this.lines;
  }

  /**
   * Stops writing and removes the file, when validation itself failed: half a report would
   * read as a source with fewer problems than it has.
   */
  abandon(): void {
    this.out.destroy();
    rmSync(this.file, { force: true });
  }

  private line(line: ReportLine): void {
    if (this.format === 'csv') this.write(csvLine(COLUMNS.map((column) => line[column])));
    else this.write(`${this.lines === 0 ? '' : ',\n'}${JSON.stringify(line)}`);
    this.lines++;
  }

  private write(text: string): void {
    if (text !== '') this.out.write(text);
  }
}
