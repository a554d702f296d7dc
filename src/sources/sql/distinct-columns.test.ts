import { describe, expect, it } from 'vitest';
import { assertDistinctColumns } from './distinct-columns.js';

describe('assertDistinctColumns', () => {
  it('lets distinct names pass, whatever their case', () => {
    expect(() => assertDistinctColumns(['id', 'email', 'Email'], 'query "q"', 'MySQL')).not.toThrow();
  });

  it('names every repeated name with its places, and says to alias them', () => {
    const call = () =>
      assertDistinctColumns(['id', 'email', 'name', 'email', 'name', 'email'], 'query "q"', 'PostgreSQL');
    expect(call).toThrow(
      expect.objectContaining({
        code: 'SOURCE_DUPLICATE_COLUMN',
        message: expect.stringMatching(
          /^query "q" returns the same column name more than once in PostgreSQL: "email" \(columns 2, 4, 6\); "name" \(columns 3, 5\)\. .* with AS /,
        ),
      }),
    );
  });
});
