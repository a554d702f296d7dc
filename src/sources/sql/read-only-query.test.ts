import { describe, expect, it } from 'vitest';
import { readOnlyProblem } from './read-only-query.js';

describe('readOnlyProblem', () => {
  it.each([
    ['SELECT * FROM people', 'postgres'],
    ['  (SELECT 1) UNION (SELECT 2);;  ', 'postgres'],
    ['WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT n FROM t', 'postgres'],
    ["SELECT replace(name, 'a', 'b'), insert(name, 1, 1, 'x') FROM people", 'mysql'],
    ['SELECT substring(name from 1 for 3), "update" FROM people', 'postgres'],
    ['SELECT `delete`, update_count FROM people -- ; DELETE FROM people', 'mysql'],
    ["SELECT $x$ ; delete $x$, E'\\'; delete' FROM people", 'postgres'],
  ] as const)('accepts %s', (query, style) => {
    expect(readOnlyProblem(query, style)).toBeUndefined();
  });

  it.each([
    ['commit; delete from people; select * from people', 'mysql', /more than one statement/],
    ['UPDATE people SET a = 1', 'postgres', /starts with UPDATE/],
    ['WITH x AS (SELECT 1) DELETE FROM people', 'mysql', /WITH … DELETE/],
    ['SELECT * FROM (DELETE FROM people RETURNING *) d', 'postgres', /changes data \(DELETE\)/],
    ["SELECT * FROM people INTO DUMPFILE '/tmp/x'", 'mysql', /INTO/],
    ['SELECT * FROM people FOR SHARE', 'postgres', /FOR SHARE/],
    ['SELECT * FROM people FOR KEY SHARE', 'postgres', /FOR KEY SHARE/],
    // `--x` is not a comment in MySQL: `a --b` is a minus a minus, and INTO still follows.
    ["SELECT a --b INTO OUTFILE '/tmp/x' FROM people", 'mysql', /INTO/],
    ['SELECT 1 /*M!100000 ; DELETE FROM people */', 'mysql', /executable comment/],
    // A standard string ends at the quote after the backslash: the DELETE is code.
    ["SELECT '\\' ; DELETE FROM people; --'", 'postgres', /more than one statement/],
    ['  ', 'postgres', /is empty/],
  ] as const)('refuses %s', (query, style, why) => {
    expect(readOnlyProblem(query, style)).toMatch(why);
  });
});
