import { describe, expect, it } from 'vitest';
import { printable, textTable } from './text-table.js';

describe('printable', () => {
  it('shows control characters of a source row as pictures, never sends them to the terminal', () => {
    expect(printable('Kfn4\u0007\u001b[31m')).toBe('Kfn4\u2407\u241b[31m');
    expect(printable('a\u007fb\u0085c')).toBe('a\u2421b\ufffdc');
    expect(printable('Zoë Smith-Ōtsuka')).toBe('Zoë Smith-Ōtsuka');
  });

  it('is what a CLI table prints', () => {
    expect(textTable(['name'], [['Ada\u001b[2J']])).toEqual(['name', '-------', 'Ada\u241b[2J']);
  });
});
