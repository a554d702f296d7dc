import { describe, expect, it } from 'vitest';
import { CODE, ERROR_CATALOG, isErrorCode } from './codes.js';

describe('the catalog of codes', () => {
  it('gives each code a one-line meaning and what to do', () => {
    for (const [code, info] of Object.entries(ERROR_CATALOG)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      for (const text of [info.meaning, info.action]) {
        expect(text.trim(), code).not.toBe('');
        expect(text, code).not.toContain('\n');
      }
    }
  });

  it('names each code by itself in CODE', () => {
    expect(Object.keys(CODE)).toEqual(Object.keys(ERROR_CATALOG));
    for (const [name, code] of Object.entries(CODE)) expect(code).toBe(name);
  });

  it('knows its own codes and nothing else', () => {
    expect(isErrorCode('CSV_RAGGED_ROW')).toBe(true);
    expect(isErrorCode('CSV_RAGGED_ROWS')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
  });
});
