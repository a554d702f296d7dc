import { describe, expect, it } from 'vitest';
import { bindNamedParams, describeQuery } from './named-params.js';

describe('bindNamedParams', () => {
  it('numbers PostgreSQL params and reuses a number for a repeated name', () => {
    expect(
      bindNamedParams('SELECT * FROM t WHERE a = :a AND b > :b OR a2 = :a', { a: 1, b: 'x' }, 'postgres'),
    ).toEqual({
      text: 'SELECT * FROM t WHERE a = $1 AND b > $2 OR a2 = $1',
      values: [1, 'x'],
    });
  });

  it('gives MySQL one ? and one value per occurrence', () => {
    expect(bindNamedParams('SELECT :a, :b, :a', { a: 1, b: null }, 'mysql')).toEqual({
      text: 'SELECT ?, ?, ?',
      values: [1, null, 1],
    });
  });

  it('leaves literals, identifiers, comments, casts and dollar quotes alone', () => {
    const query = `SELECT ':no', "col:no", x::text, $$ :no $$, $t$ :no $t$ -- :no\n/* :no */ FROM t WHERE id = :id`;
    const bound = bindNamedParams(query, { id: 7 }, 'postgres');
    expect(bound.text).toBe(query.replace(':id', '$1'));
    expect(bound.values).toEqual([7]);
  });

  it("handles doubled quotes and MySQL's backslash escapes and backticks", () => {
    expect(bindNamedParams("SELECT 'it''s :no', :yes", { yes: 1 }, 'postgres').text).toBe(
      "SELECT 'it''s :no', $1",
    );
    expect(bindNamedParams("SELECT 'a\\' :no', `c:no`, :yes # :no", { yes: 1 }, 'mysql').text).toBe(
      "SELECT 'a\\' :no', `c:no`, ? # :no",
    );
  });

  it('names every missing param at once', () => {
    expect(() => bindNamedParams('SELECT :a, :b, :c', { b: 1 }, 'postgres')).toThrow(/:a, :c.*params:/);
  });
});

describe('describeQuery', () => {
  it('prefers the name, else the first words', () => {
    expect(describeQuery('SELECT 1', 'attendees')).toBe('query "attendees"');
    expect(
      describeQuery('SELECT id,\n  email FROM attendees WHERE event_id = :event AND status = :status'),
    ).toBe('query "SELECT id, email FROM attendees WHERE ev…"');
  });
});
