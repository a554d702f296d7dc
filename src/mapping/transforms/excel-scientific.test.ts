import { describe, expect, it } from 'vitest';
import { excelScientificIn, isExcelScientific } from './excel-scientific.js';

describe("Excel's scientific notation", () => {
  it.each(['2.36021E+11', '4.91761e+11', '2,36021E+11', '1E+11', ' 4.91761E+11 '])('%j is one', (text) => {
    expect(isExcelScientific(text)).toBe(true);
  });

  it.each(['+49 30 1234', '236021000000', '2.36021E-11', '2.36021E+11 x12', 'E+11', '+1E+11'])(
    '%j is none',
    (text) => {
      expect(isExcelScientific(text)).toBe(false);
    },
  );

  it('finds it as a part of a key, not inside a longer word', () => {
    expect(excelScientificIn('eb-2.36021E+11')).toBe('2.36021E+11');
    expect(excelScientificIn('2,36021E+11/u-1')).toBe('2,36021E+11');
    expect(excelScientificIn('eb-236021000000')).toBeUndefined();
    expect(excelScientificIn('abc1E+5')).toBeUndefined();
    expect(excelScientificIn('v1.2E+3b')).toBeUndefined();
  });
});
