import { describe, expect, it } from 'vitest';
import { compileRowBuilder } from './row-builder.js';

describe('compileRowBuilder', () => {
  it('maps fields to header names, whatever the names hold', () => {
    const header = ['a', 'First Name', '"}; throw 1; //', 'line\nbreak', '\u2028', 'constructor', '0'];
    const build = compileRowBuilder(header);
    const row = build(['1', '2', '3', '4', '5', '6', '7']);
    expect(Object.keys(row).sort()).toEqual([...header].sort());
    expect(row['"}; throw 1; //']).toBe('3');
    expect(row['line\nbreak']).toBe('4');
    expect(row.constructor).toBe('6');
  });

  it('keeps __proto__ an own property, not the prototype', () => {
    const row = compileRowBuilder(['__proto__', 'x'])(['polluted', 'y']);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.hasOwn(row, '__proto__')).toBe(true);
    expect(row['__proto__']).toBe('polluted');
  });
});
