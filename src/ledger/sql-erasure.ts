import { randomBytes } from 'node:crypto';
import pLimit from 'p-limit';
import type {
  LedgerErasure,
  LedgerPerson,
  NewTombstone,
  PersonLookup,
  PersonScrub,
  ScrubTally,
  TombstoneRecord,
} from './ledger-erasure.js';
import { toNumber } from './ledger-rows.js';
import { PersonRows, type PersonRow } from './person-rows.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';

/** The runs of conference $1, and those recorded before runs named one. */
const CONFERENCE_RUNS = `SELECT id FROM runs WHERE coalesce(conference_id, 0) IN ($1, 0)`;

/**
 * $1 conference, $2 client_ids, $3 e-mails, $4 e-mail param, $5 $6 name params. `reached`: the
 * result's seq when it reached the platform, to tell whose account a shared key names.
 */
const SELECT_PERSON_ROWS = `SELECT DISTINCT r.key, lower(trim(r.params->>$4)) AS email, trim(r.params->>$4) AS raw_email,
  trim(coalesce(r.params->>$5, '') || ' ' || coalesce(r.params->>$6, '')) AS name, r.aliases, r.reached
FROM (SELECT run_id, kind, key, params, aliases, NULL::bigint AS reached FROM run_intents
      UNION ALL SELECT run_id, kind, key, params, NULL::jsonb,
        CASE WHEN action IN ('created', 'attached', 'updated') THEN seq END FROM intent_results) r
WHERE r.kind = 'user' AND r.run_id IN (${CONFERENCE_RUNS})
  AND (r.key = ANY($2::text[]) OR lower(trim(r.params->>$4)) = ANY($3::text[]))`;

/** $1 conference, $2 client_ids, $3 platform ids: a merged person's client_ids share one id. */
const SELECT_PLATFORM_IDS = `SELECT client_id, platform_id FROM id_map
WHERE conference_id = $1 AND kind = 'user' AND (client_id = ANY($2::text[]) OR platform_id = ANY($3::bigint[]))`;

/**
 * $1 conference, $2 the person's user key parts (model/link-key.ts): the links and schedules
 * that name them, wherever their keys are kept. A link key is two parts around its one `/`
 * (parts never hold one); a schedule's is the user's part alone.
 */
const SELECT_LINK_KEYS = `SELECT DISTINCT kind, key FROM (
    SELECT kind, key FROM run_intents WHERE run_id IN (${CONFERENCE_RUNS})
    UNION ALL SELECT kind, key FROM intent_results WHERE run_id IN (${CONFERENCE_RUNS})
    UNION ALL SELECT kind, key FROM synced_hashes WHERE conference_id = $1
    UNION ALL SELECT kind, unnest(keys) FROM run_unchanged
      WHERE kind NOT IN ('user', 'event') AND run_id IN (${CONFERENCE_RUNS})
  ) k
WHERE kind NOT IN ('user', 'event')
  AND (key = ANY($2::text[]) OR split_part(key, '/', 1) = ANY($2::text[]) OR split_part(key, '/', 2) = ANY($2::text[]))`;

/**
 * A user row of another person under a key of the person (a ticket handed on, a key reused):
 * $5 the e-mail param, $6 the other people's e-mails. Left as it is.
 */
const ANOTHERS_ROW = `(r.kind = 'user' AND lower(trim(r.params->>$5)) = ANY($6::text[]))`;

/** $1 conference, $2 kinds, $3 keys, $4 markers, $5 $6 `ANOTHERS_ROW`: the person's planned rows. */
const MARK_PLANNED = `WITH m AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]) AS m(kind, key, marker)),
u AS (UPDATE run_intents r SET key = m.marker, params = '{}'::jsonb, origin = NULL, aliases = NULL,
        depends_on = '[]'::jsonb, hash = ''
      FROM m WHERE r.kind = m.kind AND r.key = m.key AND r.run_id IN (${CONFERENCE_RUNS})
        AND NOT ${ANOTHERS_ROW} RETURNING 1)
SELECT count(*)::int AS n FROM u`;

/**
 * The same for results: their messages may quote the person, and their origin (the file and
 * line of their row) and platform id would find them again where the ledger is copied. Params
 * as `MARK_PLANNED`.
 */
const MARK_RESULTS = `WITH m AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]) AS m(kind, key, marker)),
u AS (UPDATE intent_results r SET key = m.marker, params = '{}'::jsonb, platform_id = NULL,
        origin_source = NULL, origin_row = NULL, origin_line = NULL,
        error_message = CASE WHEN r.error_message IS NULL THEN NULL ELSE 'erased (evsync forget)' END
      FROM m WHERE r.kind = m.kind AND r.key = m.key AND r.run_id IN (${CONFERENCE_RUNS})
        AND NOT ${ANOTHERS_ROW} RETURNING 1)
SELECT count(*)::int AS n FROM u`;

/** $1 conference, $2 kind, $3 keys, $4 markers: keys of unchanged rows, in their arrays. */
const MARK_UNCHANGED = `WITH m AS (SELECT * FROM unnest($3::text[], $4::text[]) AS m(key, marker)),
u AS (UPDATE run_unchanged u SET keys = ARRAY(
        SELECT coalesce(m.marker, t.k) FROM unnest(u.keys) WITH ORDINALITY AS t(k, i)
        LEFT JOIN m ON m.key = t.k ORDER BY t.i)
      WHERE u.kind = $2 AND u.keys && $3::text[] AND u.run_id IN (${CONFERENCE_RUNS}) RETURNING 1)
SELECT count(*)::int AS n FROM u`;

/** $1 conference, $2 kinds, $3 keys. */
const DROP_HASHES = `WITH u AS (DELETE FROM synced_hashes s USING unnest($2::text[], $3::text[]) AS m(kind, key)
  WHERE s.conference_id = $1 AND s.kind = m.kind AND s.key = m.key RETURNING 1)
SELECT count(*)::int AS n FROM u`;

/** $1 conference, $2 user client_ids. */
const DROP_HOLDS = `WITH u AS (DELETE FROM key_holds WHERE conference_id = $1 AND kind = 'user'
  AND client_id = ANY($2::text[]) RETURNING 1) SELECT count(*)::int AS n FROM u`;

/** $1 conference, $2 user client_ids. */
const DROP_IDS = `WITH u AS (DELETE FROM id_map WHERE conference_id = $1 AND kind = 'user'
  AND client_id = ANY($2::text[]) RETURNING 1) SELECT count(*)::int AS n FROM u`;

/**
 * Other rows that quote the person, each table scanned once: `$2` a regular expression of
 * every text (escaped), `$3…` the texts and their replacements in pairs (see `quoteReplacer`).
 * Links and events quote users; a user's own params quote nobody else.
 */
const REPLACE_QUOTES: ReadonlyArray<(chain: (column: string) => string) => string> = [
  (chain) => `UPDATE intent_results SET error_message = ${chain('error_message')}
    WHERE error_message ~ $2 AND run_id IN (${CONFERENCE_RUNS})`,
  (chain) => `UPDATE run_intents SET params = ${chain('params::text')}::jsonb
    WHERE kind <> 'user' AND params::text ~ $2 AND run_id IN (${CONFERENCE_RUNS})`,
  (chain) => `UPDATE intent_results SET params = ${chain('params::text')}::jsonb
    WHERE kind <> 'user' AND params::text ~ $2 AND run_id IN (${CONFERENCE_RUNS})`,
  // Every job's notices, whatever their conference: $1 is only there to keep the numbering.
  (chain) => `UPDATE job_notices SET problems = ${chain('problems::text')}::jsonb
    WHERE problems::text ~ $2 AND $1::int IS NOT NULL`,
  (chain) =>
    `UPDATE notice_deliveries SET error = ${chain('error')} WHERE error ~ $2 AND $1::int IS NOT NULL`,
];

/**
 * The tables that hold a person's rows. All are rewritten by a compacting scrub, written to or
 * not: a row removed before (a settled planned intent) leaves its old version in the file too.
 */
const PERSON_TABLES = [
  // The two largest first (compact() rewrites two at a time).
  'intent_results',
  'run_unchanged',
  'run_intents',
  'synced_hashes',
  'id_map',
  'key_holds',
  'job_notices',
  'notice_deliveries',
];

/** `replace(replace(column, $3, $4), $5, $6)…` for `pairs` pairs of params from `$3` on. */
function quoteReplacer(pairs: number): (column: string) => string {
  return (column) => {
    let expression = column;
    for (let pair = 0; pair < pairs; pair++)
      expression = `replace(${expression}, $${3 + 2 * pair}, $${4 + 2 * pair})`;
    return expression;
  };
}

/** A regular expression matching any of `texts` as they are written. */
function anyOf(texts: readonly string[]): string {
  return texts.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
}

const TOMBSTONE_COLUMNS = `id, conference_id, cardinality(hashes) AS identifiers, reason, erased_by, created_at,
  removed, lifted_at, lifted_by`;

interface TombstoneRow {
  id: string | number;
  conference_id: number;
  identifiers: number;
  reason: string | null;
  erased_by: string;
  created_at: Date;
  removed: Record<string, unknown>;
  lifted_at: Date | null;
  lifted_by: string | null;
}

/** Thrown inside a dry run's transaction so that nothing it did is kept. */
class DryRunRollback extends Error {
  constructor(readonly tally: ScrubTally) {
    super('dry run');
  }
}

export class SqlErasure implements LedgerErasure {
  constructor(private readonly sql: () => SqlClient) {}

  async key(): Promise<Buffer> {
    const db = this.sql();
    // Two processes may make one at once: the first insert wins, both read the same.
    await db.query(`INSERT INTO erasure_key (key) VALUES ($1) ON CONFLICT (only_row) DO NOTHING`, [
      randomBytes(32).toString('base64'),
    ]);
    const [row] = await db.query<{ key: string }>('SELECT key FROM erasure_key');
    return Buffer.from(row!.key, 'base64');
  }

  async findPerson(conferenceId: number, lookup: PersonLookup): Promise<LedgerPerson> {
    const person = new PersonRows(lookup);
    let platformIds = new Map<string, number>();
    // A person's rows name each other: an e-mail gives a client_id, whose rows give another
    // e-mail; a merged person's client_ids share one platform id. Each row must be the person
    // too (`PersonRows`): a row under their key naming someone else, or found by a shared
    // e-mail, is another person, whom forgetting this one must not reach (docs/privacy.md).
    // Each round reads everything found so far and makes the person again, until it holds.
    for (let round = 0, last = ''; round < 6; round++) {
      const rows = await this.sql().query<PersonRow>(SELECT_PERSON_ROWS, [
        conferenceId,
        [...new Set([...person.clientIds, ...platformIds.keys()])],
        [...person.emails],
        lookup.emailParam,
        lookup.firstNameParam,
        lookup.lastNameParam,
      ]);
      person.take(rows, platformIds.keys());
      const ids = await this.sql().query<{ client_id: string; platform_id: string | number }>(
        SELECT_PLATFORM_IDS,
        [conferenceId, [...person.clientIds], [...new Set(platformIds.values())]],
      );
      // The account of a key another person's row reached last is theirs, not the person's,
      // and so are the other keys it holds.
      const own = ids.filter((row) => !person.keyOfAnother(row.client_id));
      const accounts = new Set(
        own.filter((row) => person.clientIds.has(row.client_id)).map((row) => toNumber(row.platform_id)),
      );
      platformIds = new Map(
        own
          .filter((row) => accounts.has(toNumber(row.platform_id)))
          .map((row) => [row.client_id, toNumber(row.platform_id)]),
      );
      person.take(rows, platformIds.keys());
      const now = JSON.stringify([[...person.clientIds].sort(), [...person.emails].sort(), [...platformIds]]);
      if (now === last) break;
      last = now;
    }
    const sharedKeys = person.sharedKeys();
    return {
      clientIds: [...person.clientIds],
      emails: [...person.emails],
      rawEmails: [...person.rawEmails],
      names: [...person.names],
      platformIds,
      sharedKeys,
      keysOfAnother: sharedKeys.filter((key) => person.keyOfAnother(key)),
      otherEmails: person.otherEmails(),
      otherPeople: person.otherPeople(),
    };
  }

  async scrub(
    conferenceId: number,
    scrub: PersonScrub,
    options: { dryRun: boolean; compact: boolean },
  ): Promise<ScrubTally> {
    let tally: ScrubTally;
    try {
      tally = await this.sql().transaction(async (tx) => {
        const counted = await this.scrubIn(tx, conferenceId, scrub);
        if (options.dryRun) throw new DryRunRollback(counted);
        return counted;
      });
    } catch (error) {
      if (error instanceof DryRunRollback) return error.tally;
      throw error;
    }
    if (options.compact) await this.compact();
    return tally;
  }

  private async scrubIn(tx: SqlExecutor, conferenceId: number, scrub: PersonScrub): Promise<ScrubTally> {
    const count = async (sql: string, params: unknown[]): Promise<number> =>
      (await tx.query<{ n: number }>(sql, [conferenceId, ...params]))[0]?.n ?? 0;
    const links = await tx.query<{ kind: string; key: string }>(SELECT_LINK_KEYS, [
      conferenceId,
      scrub.userParts,
    ]);
    const markers = [...scrub.clientIds.map((key) => ({ kind: 'user', key })), ...links].map((row) => ({
      ...row,
      marker: scrub.markerOf(row.kind, row.key),
    }));
    const kinds = markers.map((m) => m.kind);
    const keys = markers.map((m) => m.key);
    const marks = markers.map((m) => m.marker);
    const others = [scrub.emailParam, scrub.otherEmails];
    // The synced state of a key whose account is another person's (a ticket the person was
    // handed and refused) is that person's: its hashes, hold, id and unchanged runs stay.
    const ofAnother = new Set(scrub.keysOfAnother);
    const stateMarkers = markers.filter((m) => m.kind !== 'user' || !ofAnother.has(m.key));
    const stateKeys = scrub.clientIds.filter((key) => !ofAnother.has(key));
    const tally: ScrubTally = {
      planned_rows: await count(MARK_PLANNED, [kinds, keys, marks, ...others]),
      results: await count(MARK_RESULTS, [kinds, keys, marks, ...others]),
      unchanged_lists: 0,
      // A hold is synced state too: the key it names is the person's.
      synced_state:
        (await count(DROP_HASHES, [stateMarkers.map((m) => m.kind), stateMarkers.map((m) => m.key)])) +
        (await count(DROP_HOLDS, [stateKeys])),
      platform_ids: await count(DROP_IDS, [stateKeys]),
      quoted_elsewhere: 0,
    };
    for (const kind of new Set(stateMarkers.map((m) => m.kind))) {
      const ofKind = stateMarkers.filter((m) => m.kind === kind);
      tally.unchanged_lists! += await count(MARK_UNCHANGED, [
        kind,
        ofKind.map((m) => m.key),
        ofKind.map((m) => m.marker),
      ]);
    }
    if (scrub.texts.length > 0) {
      const chain = quoteReplacer(scrub.texts.length);
      const pairs = scrub.texts.flatMap(({ text, replacement }) => [text, replacement]);
      for (const statement of REPLACE_QUOTES)
        tally.quoted_elsewhere! += await count(
          `WITH u AS (${statement(chain)} RETURNING 1) SELECT count(*)::int AS n FROM u`,
          [anyOf(scrub.texts.map(({ text }) => text)), ...pairs],
        );
    }
    return tally;
  }

  /**
   * Rewrites the tables that hold a person's rows, so that their files no longer hold the
   * replaced ones (PostgreSQL keeps a row's old version in the table's file, and in the
   * statistics' samples, until they are rewritten), then removes the write-ahead log that
   * held them.
   */
  private async compact(): Promise<void> {
    const db = this.sql();
    // Two at a time, on two of the pool's connections: the results and the unchanged keys
    // are most of a ledger with history, and each rewrite is one process (one core) of the
    // server; a dashboard that forgets keeps the rest of its pool for its pages.
    const twoAtATime = pLimit(2);
    await Promise.all(
      PERSON_TABLES.map((table) => twoAtATime(() => db.query(`VACUUM (FULL, ANALYZE) ${table}`))),
    );
    // The statistics sampled the rows before: analysed again above, their old versions go here.
    await db.query('VACUUM FULL pg_statistic');
    // Twice: the segments holding the old rows are before the second checkpoint's redo point.
    for (let round = 0; round < 2; round++) {
      await db.query('SELECT pg_switch_wal()');
      await db.query('CHECKPOINT');
    }
  }

  async addTombstone(tombstone: NewTombstone): Promise<TombstoneRecord> {
    const [row] = await this.sql().query<TombstoneRow>(
      `INSERT INTO tombstones (conference_id, hashes, reason, erased_by, removed)
       VALUES ($1, $2::text[], $3, $4, $5::text::jsonb) RETURNING ${TOMBSTONE_COLUMNS}`,
      [
        tombstone.conferenceId,
        tombstone.hashes,
        tombstone.reason,
        tombstone.erasedBy,
        JSON.stringify(tombstone.removed),
      ],
    );
    return tombstoneOf(row!);
  }

  async activeHashes(conferenceId: number): Promise<Set<string>> {
    const rows = await this.sql().query<{ hash: string }>(
      `SELECT DISTINCT unnest(hashes) AS hash FROM tombstones WHERE conference_id = $1 AND lifted_at IS NULL`,
      [conferenceId],
    );
    return new Set(rows.map((row) => row.hash));
  }

  async lift(conferenceId: number, hashes: readonly string[], liftedBy: string): Promise<TombstoneRecord[]> {
    const rows = await this.sql().query<TombstoneRow>(
      `UPDATE tombstones SET lifted_at = now(), lifted_by = $3
       WHERE conference_id = $1 AND lifted_at IS NULL AND hashes && $2::text[] RETURNING ${TOMBSTONE_COLUMNS}`,
      [conferenceId, hashes, liftedBy],
    );
    return rows.map(tombstoneOf);
  }

  async list(): Promise<TombstoneRecord[]> {
    const rows = await this.sql().query<TombstoneRow>(
      `SELECT ${TOMBSTONE_COLUMNS} FROM tombstones ORDER BY id DESC`,
    );
    return rows.map(tombstoneOf);
  }
}

function tombstoneOf(row: TombstoneRow): TombstoneRecord {
  return {
    id: toNumber(row.id),
    conferenceId: row.conference_id,
    identifiers: row.identifiers,
    reason: row.reason,
    erasedBy: row.erased_by,
    createdAt: row.created_at,
    removed: row.removed,
    liftedAt: row.lifted_at,
    liftedBy: row.lifted_by,
  };
}
