/**
 * The ledger's statements about conferences (migration 8, docs/ledger.md "Conferences"):
 * who they are, and the state written before runs named theirs (conference 0).
 */

const CONFERENCE_COLUMNS = 'id, base_url, key_id';

/** $1 normalised base URL, $2 key id: the conference, created on first use; the key id is kept up to date. */
export const UPSERT_CONFERENCE = `INSERT INTO conferences (base_url, key_id) VALUES ($1, $2)
ON CONFLICT (base_url) DO UPDATE SET key_id = coalesce(excluded.key_id, conferences.key_id), last_used_at = now()
RETURNING ${CONFERENCE_COLUMNS}`;

/** $1 normalised base URL. */
export const SELECT_CONFERENCE = `SELECT ${CONFERENCE_COLUMNS} FROM conferences WHERE base_url = $1`;

/** Every conference, most recently used first. */
export const SELECT_CONFERENCES = `SELECT ${CONFERENCE_COLUMNS} FROM conferences ORDER BY last_used_at DESC, id`;

/** The ledger's own id, written once at migration. */
export const SELECT_LEDGER_ID = 'SELECT ledger_id FROM ledger_identity';

/**
 * $1 job name, $2 conference id. The job's runs that name no conference become the
 * conference's; their synced hashes (conference 0) follow them, unless the conference
 * has the key already.
 */
export const ADOPT_RUNS = `UPDATE runs SET conference_id = $2 WHERE job_name = $1 AND conference_id IS NULL
RETURNING id`;

export const ADOPT_HASHES = `UPDATE synced_hashes s SET conference_id = $2
WHERE s.conference_id = 0 AND s.run_id IN (SELECT id FROM runs WHERE job_name = $1 AND conference_id = $2)
  AND NOT EXISTS (SELECT 1 FROM synced_hashes t WHERE t.conference_id = $2 AND t.kind = s.kind AND t.key = s.key)
RETURNING 1`;

/**
 * $1 job name, $2 conference id. The id map (conference 0) of the keys the job's runs
 * recorded a platform id for: the id map itself does not say which job wrote an entry.
 */
export const ADOPT_IDS = `UPDATE id_map m SET conference_id = $2
FROM (SELECT DISTINCT r.kind, r.key FROM intent_results r
      WHERE r.platform_id IS NOT NULL
        AND r.run_id IN (SELECT id FROM runs WHERE job_name = $1 AND conference_id = $2)) mine
WHERE m.conference_id = 0 AND m.kind = mine.kind AND m.client_id = mine.key
  AND NOT EXISTS (SELECT 1 FROM id_map t WHERE t.conference_id = $2 AND t.kind = m.kind AND t.client_id = m.client_id)
RETURNING 1`;

/**
 * $1 job name, $2 conference id. The job's notification state of conference 0 (migration 13:
 * its runs named none), unless the conference has its own already.
 */
export const ADOPT_NOTICES = `UPDATE job_notices n SET conference_id = $2
WHERE n.conference_id = 0 AND n.job_name = $1
  AND NOT EXISTS (SELECT 1 FROM job_notices t WHERE t.conference_id = $2 AND t.job_name = $1)
RETURNING 1`;

/** State no job took yet (conference 0): said once when a job's adoption leaves some. */
export const COUNT_UNADOPTED = `SELECT (SELECT count(*) FROM synced_hashes WHERE conference_id = 0) AS hashes,
  (SELECT count(*) FROM id_map WHERE conference_id = 0) AS ids,
  (SELECT count(DISTINCT job_name) FROM runs WHERE conference_id IS NULL) AS jobs`;
