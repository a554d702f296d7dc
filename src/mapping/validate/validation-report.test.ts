import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors/evsync-error.js';
import { ValidationReport } from './validation-report.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-validation-report-'));

function openError(file: string): ConfigError {
  try {
    new ValidationReport(file);
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error(`expected ${file} to be refused`);
}

describe('ValidationReport', () => {
  it('refuses at once a report in a folder that does not exist, naming the path and the reason', () => {
    const error = openError(join(dir, 'missing', 'r.csv'));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('EVSYNC_REPORT_UNWRITABLE');
    expect(error.message).toBe(
      `Cannot write the report ${join(dir, 'missing', 'r.csv')}: the folder ${join(dir, 'missing')} does not exist: create it, or give another path`,
    );
  });

  it('refuses a report under a file, and a report that is a directory', () => {
    const file = join(dir, 'people.csv');
    writeFileSync(file, 'a\n');
    expect(openError(join(file, 'r.csv')).message).toContain(`a part of ${file} is a file, not a folder`);
    mkdirSync(join(dir, 'folder.json'));
    expect(openError(join(dir, 'folder.json')).message).toContain('it is a directory');
  });

  it('says which report could not be written when a write fails (disk full)', async () => {
    const full = join(dir, 'full.csv');
    symlinkSync('/dev/full', full);
    const report = new ValidationReport(full);
    report.add('users', {
      type: 'skipped',
      origin: { source: 'people.csv', row: 1 },
      reason: 'x'.repeat(70_000),
    });
    await expect(report.close()).rejects.toThrow(`Cannot write the report ${full}: ENOSPC`);
  });

  it('never writes a secret of a source URL', async () => {
    const file = join(dir, 'r.json');
    const report = new ValidationReport(file);
    report.add('sessionize', {
      type: 'skipped',
      origin: { source: 'https://u:pw@host/sz.json?token=S3cretTok&lang=en', row: 3 },
      reason: 'no e-mail',
    });
    expect(await report.close()).toBe(1);
    const [line] = JSON.parse(readFileSync(file, 'utf8')) as { source: string }[];
    expect(line?.source).toBe('https://u:[redacted]@host/sz.json?token=[redacted]&lang=en');
  });
});

describe('ValidationReport.abandon', () => {
  it('leaves no half report behind', async () => {
    const file = join(dir, 'abandoned.csv');
    const report = new ValidationReport(file);
    report.abandon();
    await new Promise((resolve) => setImmediate(resolve));
    expect(existsSync(file)).toBe(false);
  });
});
