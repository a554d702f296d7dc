import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { explainIssues } from './zod-issues.js';

const schema = z.object({
  value: z.union(
    [
      z.string(),
      z.strictObject({ column: z.string(), transforms: z.array(z.enum(['trim', 'lower'])).optional() }),
      z.strictObject({ template: z.string() }),
    ],
    { error: 'write a column name, {column: …} or {template: …}' },
  ),
});

const explain = (value: unknown): string[] =>
  explainIssues(schema.safeParse({ value }).error?.issues ?? []).map(
    (i) => `${i.path.join('.')}: ${i.message}`,
  );

describe('explainIssues', () => {
  it('reports the issues of the union member the value was meant as', () => {
    expect(explain({ column: 'A', transforms: ['shout'] })).toEqual([
      'value.transforms.0: Invalid option: expected one of "trim"|"lower"',
    ]);
    expect(explain({ template: 3 })).toEqual([
      'value.template: Invalid input: expected string, received number',
    ]);
  });

  it("keeps the union's own message when no member stands out", () => {
    expect(explain({ colum: 'A' })).toEqual(['value: write a column name, {column: …} or {template: …}']);
    expect(explain(7)).toEqual(['value: write a column name, {column: …} or {template: …}']);
  });

  it('passes other issues through with their paths', () => {
    expect(explainIssues(z.object({ n: z.number() }).safeParse({ n: 'x' }).error?.issues ?? [])).toEqual([
      { path: ['n'], message: 'Invalid input: expected number, received string' },
    ]);
  });
});
