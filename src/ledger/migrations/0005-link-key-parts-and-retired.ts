import type { Migration } from './migration.js';

// Link and schedule keys write each client id as a key part (`%`, `/`, `#`, `:`
// percent-encoded, docs/ledger.md "Link keys"), so that a `/` inside a client id can no
// longer move a link to another event. Keys stored by earlier versions are rewritten the
// way those versions read them: a speaker or RSVP key at its first `/` (`#<digits>` a
// platform id, `email:` an RSVP's user by e-mail), a contact key at its last (its target,
// `user:<id>` or `exhibitor:<id>`, holds none); a schedule key is the user, `#<digits>` a
// platform id. A key without those four characters and with one `/` stays as it was.
// Results named by their place (`@source:row`) are left alone; a duplicate row's
// `#row<n>` suffix is kept. The rewrite is one-to-one, so no two keys meet.
//
// Also: a mirror delete of a key whose platform record another key still in the source
// maps to is `retired` (no call), docs/sync-engine.md.
const PART = (value: string): string =>
  `replace(replace(replace(replace(${value}, '%', '%25'), '/', '%2F'), '#', '%23'), ':', '%3A')`;
const FIRST = `split_part(k, '/', 1)`;
const REST = `substr(k, length(split_part(k, '/', 1)) + 2)`;
const LAST = `regexp_replace(k, '^.*/', '')`;
const BEFORE_LAST = `left(k, length(k) - length(regexp_replace(k, '^.*/', '')) - 1)`;

const NEW_KEY = `CASE
  WHEN kind = 'speaker' AND strpos(k, '/') > 0 THEN ${PART(FIRST)} || '/' ||
    CASE WHEN ${REST} ~ '^#[0-9]+$' THEN ${REST} ELSE ${PART(REST)} END
  WHEN kind = 'rsvp' AND strpos(k, '/') > 0 THEN
    CASE WHEN ${FIRST} ~ '^#[0-9]+$' THEN ${FIRST}
         WHEN ${FIRST} LIKE 'email:%' THEN 'email:' || ${PART(`substr(${FIRST}, 7)`)}
         ELSE ${PART(FIRST)} END || '/' || ${PART(REST)}
  WHEN kind = 'contact' AND strpos(k, '/') > 0 THEN ${PART(BEFORE_LAST)} || '/' || ${LAST}
  WHEN kind = 'schedule' THEN CASE WHEN k ~ '^#[0-9]+$' THEN k ELSE ${PART('k')} END
  ELSE k END`;

/**
 * Rewrites `table.key` for the link and schedule kinds; `withSuffix` keeps a duplicate row's
 * `#row<n>`. In two steps, through keys marked with a leading U+0001 that no key has, since a
 * unique index is checked row by row and a new key may be another row's old one.
 */
function rewrite(table: string, withSuffix: boolean): string {
  const split = withSuffix
    ? `regexp_replace(key, '#row[0-9]+$', '') AS k, substring(key from '#row[0-9]+$') AS suffix`
    : `key AS k, NULL::text AS suffix`;
  return `UPDATE ${table} t SET key = chr(1) || n.new_key FROM (
  SELECT ctid AS row_id, key AS old_key, (${NEW_KEY}) || coalesce(suffix, '') AS new_key
  FROM (SELECT ctid, kind, key, ${split} FROM ${table}
        WHERE kind IN ('speaker', 'rsvp', 'contact', 'schedule') AND key NOT LIKE '@%') s
) n WHERE t.ctid = n.row_id AND n.new_key <> n.old_key;
UPDATE ${table} SET key = substr(key, 2) WHERE key LIKE chr(1) || '%';`;
}

export const migration0005: Migration = {
  version: 5,
  name: 'link key parts and retired results',
  sql: /* sql */ `
${rewrite('synced_hashes', false)}
${rewrite('run_intents', false)}
${rewrite('intent_results', true)}
ALTER TABLE intent_results DROP CONSTRAINT IF EXISTS intent_results_action_check;
ALTER TABLE intent_results ADD CONSTRAINT intent_results_action_check
  CHECK (action IN ('created', 'attached', 'updated', 'unchanged', 'deleted', 'retired', 'skipped', 'failed'));
`,
};
