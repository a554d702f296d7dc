/**
 * The statements of a conference's sync state (sql-sync-state.ts): its id map, its synced
 * hashes and the params they were synced with, and what became of keys since (removed by a
 * run, refused by the platform). The dialect is the ledger's (ledger-sql.ts).
 */

/** $1 JSON array of {kind, key, hash, run_id}, $2 conference id. */
export const UPSERT_HASHES = `INSERT INTO synced_hashes (conference_id, kind, key, hash, run_id, synced_at)
SELECT $2, e.v->>'kind', e.v->>'key', e.v->>'hash', e.v->>'run_id', now()
FROM jsonb_array_elements($1::text::jsonb) AS e(v)
ON CONFLICT (conference_id, kind, key) DO UPDATE SET hash = excluded.hash, run_id = excluded.run_id,
  synced_at = excluded.synced_at
WHERE synced_hashes.hash <> excluded.hash`;

/** $1 JSON array of {kind, key}, $2 conference id. */
export const DELETE_HASHES = `DELETE FROM synced_hashes s USING jsonb_array_elements($1::text::jsonb) AS e(v)
WHERE s.conference_id = $2 AND s.kind = e.v->>'kind' AND s.key = e.v->>'key'`;

/**
 * $1 JSON array of {kind, key}, $2 conference id: each key's synced hash made one that no
 * row's params hash to (not hex: `tailWord` reads it as no tail), so the next plan sends the
 * key again. Its `run_id` stays, and with it the result that `SELECT_SYNCED_PARAMS` reads:
 * what the identity checks compare a row with (docs/audit.md, "Repair").
 */
export const STALE_HASHES = `UPDATE synced_hashes s SET hash = 'stale: sent again by an audit repair'
FROM jsonb_array_elements($1::text::jsonb) AS e(v)
WHERE s.conference_id = $2 AND s.kind = e.v->>'kind' AND s.key = e.v->>'key'`;

/** $1 JSON array of {kind, key, platform_id}, $2 conference id. */
export const UPSERT_IDS = `INSERT INTO id_map (conference_id, kind, client_id, platform_id, updated_at)
SELECT $2, e.v->>'kind', e.v->>'key', (e.v->>'platform_id')::bigint, now()
FROM jsonb_array_elements($1::text::jsonb) AS e(v)
ON CONFLICT (conference_id, kind, client_id) DO UPDATE SET platform_id = excluded.platform_id,
  updated_at = excluded.updated_at
WHERE id_map.platform_id <> excluded.platform_id`;

/** $1 JSON array of {kind, key}, $2 conference id. */
export const DELETE_IDS = `DELETE FROM id_map m USING jsonb_array_elements($1::text::jsonb) AS e(v)
WHERE m.conference_id = $2 AND m.kind = e.v->>'kind' AND m.client_id = e.v->>'key'`;

/** $1 kind, $2 client id, $3 conference id. */
export const SELECT_ID =
  'SELECT platform_id FROM id_map WHERE kind = $1 AND client_id = $2 AND conference_id = $3';

/**
 * $1 kind, $2 client_ids (text[]), $3 conference id: one primary-key probe per key, pinned as
 * {@link HASHES_OF_KEYS} pins it (`SqlSyncState.platformIdsOf`).
 */
export const SELECT_IDS_OF = `SELECT m.client_id, m.platform_id FROM unnest($2::text[]) AS asked (key) CROSS JOIN LATERAL
  (SELECT client_id, platform_id FROM id_map m
   WHERE m.conference_id = $3 AND m.kind = $1 AND m.client_id = asked.key OFFSET 0) m`;

/**
 * $1 kind, $2 conference id: the client_ids of each platform id that more than one names, a
 * merged person's keys (`SqlSyncState.keysSharingIds`). A scan of the conference's id map:
 * read once by a plan whose users come from several steps.
 */
export const SELECT_KEYS_SHARING_IDS = `SELECT array_agg(client_id ORDER BY client_id) AS keys FROM id_map
WHERE conference_id = $2 AND kind = $1 GROUP BY platform_id HAVING count(*) > 1`;

/**
 * $1 kind, $2 conference id, $3 the last client_id of the page before ('' first), $4 page
 * size: the id map in client_id order, a range of the primary key (`SqlSyncState.idPages`).
 */
export const SELECT_ID_PAGE = `SELECT client_id, platform_id FROM id_map
WHERE conference_id = $2 AND kind = $1 AND client_id > $3 ORDER BY client_id LIMIT $4`;

/** $1 kind, $2 conference id. */
export const SELECT_HASHES = 'SELECT key, hash FROM synced_hashes WHERE kind = $1 AND conference_id = $2';

/**
 * $1 kind, $2 conference id, $3 the last key of the page before ('' first), $4 page size:
 * the page's keys in key order (a range of the primary key) as one JSON array, and the last
 * 16 characters of their synced hashes as one string, 16 a key, a tail that is not 16
 * lower-case hex digits written as 16 dashes: what a streamed plan reads once to tell
 * unchanged rows (sync/plan/synced-hashes.ts). One row a page, not one a key: the driver
 * built an object per row, nine tenths of the client’s CPU for the read (docs/sync-engine.md, "Memory").
 * Hex is told by `ltrim`, not a regular expression, which took a third of the server's time.
 */
export const SELECT_HASH_TAILS = `SELECT coalesce(json_agg(key ORDER BY key), '[]') AS keys,
  coalesce(string_agg(CASE WHEN length(tail) = 16 AND ltrim(tail, '0123456789abcdef') = '' THEN tail
    ELSE '----------------' END, '' ORDER BY key), '') AS tails
FROM (SELECT key, right(hash, 16) AS tail FROM synced_hashes
  WHERE conference_id = $2 AND kind = $1 AND key > $3 ORDER BY key LIMIT $4) page`;

/**
 * The synced hashes of $1 kind, $2 keys (text[]), $3 conference id, one primary-key probe per
 * key whatever the statistics say: the lateral subquery, kept apart by `OFFSET 0`, pins that
 * plan. As `key = ANY($2)`, a table never analyzed (the embedded ledger has no autovacuum,
 * and a server may have none) was read whole per statement, each row compared with every
 * key asked: 4 s per 1,000 keys at 200,000 synced keys on PostgreSQL.
 */
const HASHES_OF_KEYS = `unnest($2::text[]) AS asked (key) CROSS JOIN LATERAL
  (SELECT * FROM synced_hashes s WHERE s.conference_id = $3 AND s.kind = $1 AND s.key = asked.key OFFSET 0) s`;

/** $1 kind, $2 keys (text[]), $3 conference id: one index lookup per key. */
export const SELECT_HASHES_OF = `SELECT s.key, s.hash FROM ${HASHES_OF_KEYS}`;

/**
 * The synced hashes of $1 kind, $2 keys, $3 conference id, with the result that wrote each
 * (`r`) and its planned intent while the run keeps it (`ri`): index probes each, as
 * {@link HASHES_OF_KEYS}.
 */
const SYNCED_RESULT = `FROM ${HASHES_OF_KEYS}
CROSS JOIN LATERAL (SELECT r.params FROM intent_results r
  WHERE r.run_id = s.run_id AND r.kind = s.kind AND r.key = s.key OFFSET 0) r
LEFT JOIN LATERAL (SELECT ri.params FROM run_intents ri
  WHERE ri.run_id = s.run_id AND ri.kind = s.kind AND ri.key = s.key OFFSET 0) ri ON true`;

/** The result's params; a result recorded without them (none the engine writes) reads its planned intent's. */
const SYNCED_PARAMS = `CASE WHEN r.params IS NULL OR r.params = '{}'::jsonb THEN ri.params ELSE r.params END`;

/**
 * $1 kind, $2 keys (text[]), $3 conference id: the non-empty param names of the result that
 * wrote each key's synced hash (one index lookup per key on each table). The result, not
 * the planned intent: a completed run keeps only the planned intents of rows that failed
 * (migration 11), and its results carry the params it planned.
 */
export const SELECT_SYNCED_PARAM_NAMES = `SELECT s.key,
  coalesce((SELECT array_agg(e.name ORDER BY e.name) FROM jsonb_each_text(${SYNCED_PARAMS}) AS e(name, value)
            WHERE e.value <> ''), '{}') AS names
${SYNCED_RESULT}`;

/**
 * $1 kind, $2 keys, $3 conference id: the params each key was last synced with (those of
 * the result that wrote its synced hash), as stored: redacted, so a secret is never read.
 * What a mirror delete preview names a key by (a name, an e-mail).
 */
export const SELECT_SYNCED_PARAMS = `SELECT s.key, ${SYNCED_PARAMS} AS params
${SYNCED_RESULT}`;

/**
 * $1 kind, $2 client_ids (text[]), $3 conference id: for each key the id map has, the params
 * last synced to its platform user under any of the user's client_ids, the newest change
 * first (`SqlSyncState.accountsLastSent`): a merged person is sent under one key, and another
 * key's own record, if it has one, is of the night before the merge. By the id map's index
 * on platform ids (migration 18) and the primary keys.
 */
export const SELECT_ACCOUNTS_LAST_SENT = `SELECT DISTINCT ON (asked.key) asked.key, ${SYNCED_PARAMS} AS params
FROM unnest($2::text[]) AS asked (key)
JOIN id_map m ON m.conference_id = $3 AND m.kind = $1 AND m.client_id = asked.key
JOIN id_map o ON o.conference_id = $3 AND o.kind = $1 AND o.platform_id = m.platform_id
JOIN synced_hashes s ON s.conference_id = $3 AND s.kind = $1 AND s.key = o.client_id
CROSS JOIN LATERAL (SELECT r.params FROM intent_results r
  WHERE r.run_id = s.run_id AND r.kind = s.kind AND r.key = s.key OFFSET 0) r
LEFT JOIN LATERAL (SELECT ri.params FROM run_intents ri
  WHERE ri.run_id = s.run_id AND ri.kind = s.kind AND ri.key = s.key OFFSET 0) ri ON true
ORDER BY asked.key, s.synced_at DESC, o.client_id = asked.key DESC`;

/**
 * $1 kind, $2 keys, $3 conference id: for each key that a run of this conference removed (a
 * mirror delete or a retire) and that has no synced hash now, the params of its newest
 * `created`, `attached` or `updated` result in this conference, as stored (redacted): the
 * person last sent under a key that left the conference, whose platform account keeps the
 * client_id (spec §4.2 rule 4). A key asked is first probed in the removals' own index
 * (migration 17), so that a run's creates, nearly all new keys, cost one probe each; only a
 * removed key's synced hash and runs are probed, through their primary keys. Inside the
 * lateral subquery, kept apart by `OFFSET 0`: as a condition of the whole statement, a server
 * without statistics read every synced key of the kind for it (21,502 rows for one removed
 * key). A result retention pruned is not read.
 */
export const SELECT_REMOVED_KEYS_LAST_SENT = `SELECT asked.key, last.params
FROM unnest($2::text[]) AS asked (key)
CROSS JOIN LATERAL (SELECT 1 FROM intent_results d
  WHERE d.kind = $1 AND d.key = asked.key AND d.action IN ('deleted', 'retired')
    AND EXISTS (SELECT 1 FROM runs dr WHERE dr.id = d.run_id AND coalesce(dr.conference_id, 0) = $3)
    AND NOT EXISTS (SELECT 1 FROM synced_hashes s WHERE s.conference_id = $3 AND s.kind = $1 AND s.key = d.key)
  LIMIT 1 OFFSET 0) removed
CROSS JOIN LATERAL (SELECT r.params FROM runs ru JOIN intent_results r ON r.run_id = ru.id
  WHERE coalesce(ru.conference_id, 0) = $3 AND r.kind = $1 AND r.key = asked.key
    AND r.action IN ('created', 'attached', 'updated') AND r.params <> '{}'::jsonb
  ORDER BY r.seq DESC LIMIT 1 OFFSET 0) last`;

/**
 * $1 kind, $2 client_ids (text[]), $3 conference id: for each key the id map has whose
 * platform user a run of this conference deleted under another of its keys, none of whose
 * keys is synced now, the params of the newest `created`, `attached` or `updated` result
 * under either key (`SqlSyncState.deletedAccountsLastSent`): a merged person's other
 * client_ids keep their id-map rows after the delete, which is recorded under the first key.
 * Asked only of keys with an id and nothing synced to their account (an update's, and in a
 * plan a merged create's other keys), a few a run. Each step is
 * a lateral subquery kept apart by `OFFSET 0`, in this order (the asked key's id, the
 * deletes of that platform id by migration 19's index, then its account's synced keys): as
 * one join, a server without statistics joined every id-map row of the conference with the
 * keys asked and probed every account, 3 s a statement at 5,000 users.
 */
export const SELECT_DELETED_ACCOUNTS_LAST_SENT = `SELECT asked.key, last.params
FROM unnest($2::text[]) AS asked (key)
CROSS JOIN LATERAL (SELECT m.platform_id FROM id_map m
  WHERE m.conference_id = $3 AND m.kind = $1 AND m.client_id = asked.key OFFSET 0) m
CROSS JOIN LATERAL (SELECT d.key FROM intent_results d
  WHERE d.kind = $1 AND d.platform_id = m.platform_id AND d.action = 'deleted'
    AND EXISTS (SELECT 1 FROM runs dr WHERE dr.id = d.run_id AND coalesce(dr.conference_id, 0) = $3)
  ORDER BY d.seq DESC LIMIT 1 OFFSET 0) removed
CROSS JOIN LATERAL (SELECT removed.key WHERE NOT EXISTS (SELECT 1 FROM id_map o JOIN synced_hashes s
    ON s.conference_id = o.conference_id AND s.kind = o.kind AND s.key = o.client_id
  WHERE o.conference_id = $3 AND o.kind = $1 AND o.platform_id = m.platform_id) OFFSET 0) unsynced
CROSS JOIN LATERAL (SELECT r.params FROM runs ru JOIN intent_results r ON r.run_id = ru.id
  WHERE coalesce(ru.conference_id, 0) = $3 AND r.kind = $1 AND r.key IN (asked.key, unsynced.key)
    AND r.action IN ('created', 'attached', 'updated') AND r.params <> '{}'::jsonb
  ORDER BY r.seq DESC LIMIT 1 OFFSET 0) last`;

/** $1 kind, $2 job name, $3 conference id. */
export const SELECT_KNOWN_KEYS = `SELECT s.key FROM synced_hashes s JOIN runs r ON r.id = s.run_id
WHERE s.conference_id = $3 AND s.kind = $1 AND r.job_name = $2 ORDER BY 1`;

/**
 * $1 kind, $2 keys, $3 conference id (0: runs that name none): the newest `deleted` or
 * `retired` result of each key. Few keys are asked (parents a dependent names that the id
 * map does not have): each run of the conference is probed through the results' unique
 * `(run_id, kind, key)` index.
 */
export const SELECT_LAST_REMOVALS = `SELECT DISTINCT ON (r.key) r.key, r.run_id, r.action, r.recorded_at
FROM runs ru JOIN intent_results r ON r.run_id = ru.id
WHERE coalesce(ru.conference_id, 0) = $3 AND r.kind = $1 AND r.key = ANY($2::text[])
  AND r.action IN ('deleted', 'retired')
ORDER BY r.key, r.seq DESC`;

/**
 * $1 kind, $2 keys, $3 conference id: each key whose newest result that sent it (a success
 * or a failure) is a failure the platform answered 422, with its run. Asked only of a few
 * events no run has synced (picks of schedules last sent short), probed as
 * `SELECT_LAST_REMOVALS` is.
 */
export const SELECT_LAST_REFUSALS = `SELECT * FROM (SELECT DISTINCT ON (r.key) r.key, r.run_id, r.action,
  r.http_status, r.error_message, r.recorded_at
FROM runs ru JOIN intent_results r ON r.run_id = ru.id
WHERE coalesce(ru.conference_id, 0) = $3 AND r.kind = $1 AND r.key = ANY($2::text[])
  AND r.action IN ('created', 'attached', 'updated', 'unchanged', 'deleted', 'retired', 'failed')
ORDER BY r.key, r.seq DESC) newest
WHERE newest.action = 'failed' AND newest.http_status = 422`;
