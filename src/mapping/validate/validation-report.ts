import { createWriteStream, type WriteStream } from 'node:fs';
import { extname } from 'node:path';
import { csvLine } from '../../sync/report/csv-cell.js';
import { MappingError } from '../mapping-error.js';
import type { MappedItem } from '../mapped-item.js';

const COLUMNS = ['mapping', 'source', 'row', 'line', 'status', 'field', 'param', 'code', 'message'] as const;
type ReportLine = Record<(typeof COLUMNS)[number], string | number>;

/**
 * The `--report` file of `evsync validate`: one line per problem of every row that is not
 * sent as it is (invalid, skipped, duplicate), streamed to disk as rows come. CSV (cells
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
      throw new MappingError(`The report file ${file} must end in .csv or .json`, { code: 'EVSYNC_USAGE' });
    }
    this.format = extension === '.csv' ? 'csv' : 'json';
    this.out = createWriteStream(file);
    this.out.on('error', (error) => (this.failed = error));
    this.write(this.format === 'csv' ? csvLine(COLUMNS) : '[\n');
  }

  add(mapping: string, item: MappedItem): void {
    const base = { mapping, source: item.origin.source, row: item.origin.row, line: item.origin.line ?? '' };
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
          code: 'SKIPPED',
          message: item.reason,
        });
        break;
      case 'duplicate':
        this.line({
          ...base,
          status: 'duplicate',
          field: item.field,
          param: '',
          code: `DUPLICATE_${item.policy.toUpperCase()}`,
          message: item.message,
        });
        break;
      default:
        break;
    }
  }

  /** Finishes the file; a write error (disk full, no permission) surfaces here. */
  async close(): Promise<number> {
    this.write(this.format === 'csv' ? '' : this.lines === 0 ? ']\n' : '\n]\n');
    await new Promise<void>((resolve, reject) => {
      this.out.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
    if (this.failed) {
      throw new MappingError(`Cannot write the report ${this.file}: ${this.failed.message}`, {
        cause: this.failed,
      });
    }
    return this.lines;
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
