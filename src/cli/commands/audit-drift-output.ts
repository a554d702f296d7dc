import { isRepairable } from '../../sync/audit/drift.js';
import { once } from 'node:events';
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csvLine } from '../../report/csv-cell.js';
import type { AuditSummary, DriftEntry } from '../../sync/audit/drift.js';
import type { RunReportFile } from './run-outcome.js';

const REPORT_COLUMNS = ['kind', 'key', 'type', 'fields', 'platform_id', 'detail'] as const;

/**
 * Where `evsync audit` puts each drift entry as the audit finds it, so that a conference
 * far out of sync is not held in memory (docs/audit.md, "Memory and calls"):
 * - the `--report` file is written entry by entry (CSV, or the JSON array, as before);
 * - for `--json`, the entries are spooled to a private temporary file and printed after
 *   the summary (the document keeps its shape, `{"summary":…,"drift":[…]}`);
 * - the terminal's examples keep the first `examples + 1` of each kind and type (one more
 *   than shown, for the "… more" line), counts keep the rest;
 * - `--repair` keeps the missing and changed entries: they are the keys to send again
 *   (another person under a key is counted, never sent again: `isRepairable`).
 */
export class AuditDriftOutput {
  /** Entries found so far. */
  count = 0;
  /** Extras found so far (they alone exit 0). */
  extras = 0;
  readonly examples: DriftEntry[] = [];
  readonly toRepair: DriftEntry[] = [];
  /** Users that now name another person (`another_person`): never repaired, said so. */
  anotherPerson = 0;
  private readonly perGroup = new Map<string, number>();
  private readonly reportJson: boolean;
  private spool: { folder: string; file: string; fd: number } | undefined;

  constructor(
    private readonly options: {
      report: RunReportFile | undefined;
      json: boolean;
      repair: boolean;
      /** Shown per kind and type on a terminal (`formatAudit`'s `examples`). */
      examples: number;
    },
  ) {
    this.reportJson = options.report?.file.toLowerCase().endsWith('.json') ?? false;
    if (options.report && !this.reportJson) writeSync(options.report.fd, csvLine(REPORT_COLUMNS));
    if (options.json) {
      // mkdtemp makes the folder 0700: entries name people, as the run report does.
      const folder = mkdtempSync(join(tmpdir(), 'evsync-audit-'));
      const file = join(folder, 'drift.json');
      this.spool = { folder, file, fd: openSync(file, 'w', 0o600) };
    }
  }

  /** The audit's `DriftSink`. */
  readonly add = (entry: DriftEntry): void => {
    const first = this.count === 0;
    this.count += 1;
    if (entry.type === 'extra') this.extras += 1;
    else if (entry.type === 'another_person') this.anotherPerson += 1;
    else if (this.options.repair && isRepairable(entry)) this.toRepair.push(entry);
    const group = `${entry.kind}/${entry.type}`;
    const seen = this.perGroup.get(group) ?? 0;
    this.perGroup.set(group, seen + 1);
    if (seen <= this.options.examples) this.examples.push(entry);
    const report = this.options.report;
    if (report && this.reportJson) {
      // The lines JSON.stringify(entries, null, 2) would write for this entry.
      const item = JSON.stringify(entry, null, 2).replace(/^/gm, '  ');
      writeSync(report.fd, `${first ? '[\n' : ',\n'}${item}`);
    } else if (report) {
      writeSync(
        report.fd,
        csvLine([entry.kind, entry.key, entry.type, entry.fields.join(' '), entry.platform_id, entry.detail]),
      );
    }
    if (this.spool) writeSync(this.spool.fd, `${first ? '' : ','}${JSON.stringify(entry)}`);
  };

  /** Ends the report file (it is then kept, as `withReportFile` expects). */
  closeReport(): void {
    const report = this.options.report;
    if (!report) return;
    if (this.reportJson) writeSync(report.fd, this.count === 0 ? '[]\n' : '\n]\n');
    closeSync(report.fd);
    report.written = true;
  }

  /** Prints `{"summary":…,"drift":[…]}` on stdout, the entries read back from the spool. */
  async printJson(summary: AuditSummary): Promise<void> {
    if (!this.spool) return;
    closeSync(this.spool.fd);
    process.stdout.write(`{"summary":${JSON.stringify(summary)},"drift":[`);
    for await (const chunk of createReadStream(this.spool.file)) {
      if (!process.stdout.write(chunk as Buffer)) await once(process.stdout, 'drain');
    }
    process.stdout.write(']}\n');
  }

  /** Removes the spool, whatever happened. */
  dispose(): void {
    if (!this.spool) return;
    try {
      closeSync(this.spool.fd);
    } catch {
      // Already closed by printJson.
    }
    rmSync(this.spool.folder, { recursive: true, force: true });
    this.spool = undefined;
  }
}
