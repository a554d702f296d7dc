import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditSummary, DriftEntry } from '../../sync/audit/drift.js';
import { formatAudit } from '../../sync/audit/audit-summary.js';
import { AuditDriftOutput } from './audit-drift-output.js';

const entries: DriftEntry[] = Array.from({ length: 8 }, (_, at) => ({
  kind: 'user',
  key: `u${at}`,
  type: at % 4 === 3 ? 'extra' : 'changed',
  fields: ['user[last_name]'],
  platform_id: at,
  detail: `user[last_name]: platform "A${at}", source "B, \\"${at}\\""`,
}));
const summary: AuditSummary = {
  user: {
    in_sync: 1,
    missing: 0,
    changed: 6,
    another_person: 0,
    extra: 2,
    erased: 0,
    not_synced: 0,
    not_auditable: 0,
  },
};

describe('AuditDriftOutput', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evsync-drift-output-'));
  afterEach(() => vi.restoreAllMocks());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the JSON report and the --json document as whole arrays would be written', async () => {
    const file = join(dir, 'drift.json');
    const report = { file, fd: openSync(file, 'w'), written: false };
    const output = new AuditDriftOutput({ report, json: true, repair: false, examples: 5 });
    for (const entry of entries) output.add(entry);
    output.closeReport();
    let printed = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed += chunk.toString();
      return true;
    });
    await output.printJson(summary);
    output.dispose();
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(entries, null, 2)}\n`);
    expect(report.written).toBe(true);
    expect(printed).toBe(`${JSON.stringify({ summary, drift: entries })}\n`);
    expect([output.count, output.extras]).toEqual([8, 2]);
  });

  it('writes an empty JSON report and document', async () => {
    const file = join(dir, 'empty.json');
    const output = new AuditDriftOutput({
      report: { file, fd: openSync(file, 'w'), written: false },
      json: true,
      repair: false,
      examples: 5,
    });
    output.closeReport();
    let printed = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed += chunk.toString();
      return true;
    });
    await output.printJson({});
    output.dispose();
    expect(readFileSync(file, 'utf8')).toBe('[]\n');
    expect(printed).toBe(`${JSON.stringify({ summary: {}, drift: [] })}\n`);
  });

  it('keeps enough examples for the same table, and the repair keys', () => {
    const output = new AuditDriftOutput({ report: undefined, json: false, repair: true, examples: 2 });
    for (const entry of entries) output.add(entry);
    expect(formatAudit(summary, output.examples, 2)).toBe(formatAudit(summary, entries, 2));
    expect(output.examples.length).toBeLessThan(entries.length);
    expect(output.toRepair.map((entry) => entry.key)).toEqual(['u0', 'u1', 'u2', 'u4', 'u5', 'u6']);
  });
});
