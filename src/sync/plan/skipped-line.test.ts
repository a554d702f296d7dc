import { describe, expect, it } from 'vitest';
import { skippedLine } from './plan-summary.js';

describe('skippedLine: the skipped column told apart', () => {
  it('counts repeated rows apart from rows left out on purpose and rows lost for missing data', () => {
    expect(skippedLine({ onPurpose: 0, lost: 48, duplicates: 2 })).toBe(
      "Skipped: 0 on purpose (left out by a `when:` condition, or naming a user or event that was, or that a run deleted), 2 duplicates (a row repeating another's key: left out by on_duplicate, or replaced by a later step's row), 48 lost for missing data.",
    );
    expect(skippedLine({ onPurpose: 1, lost: 0 })).not.toMatch(/duplicate/);
    expect(skippedLine({ onPurpose: 0, lost: 0, duplicates: 1 })).toMatch(/1 duplicate \(/);
    expect(skippedLine({ onPurpose: 0, lost: 0 })).toBe('');
  });
});
