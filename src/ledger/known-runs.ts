import { unknownRunError } from './ledger-error.js';
import { toNumber } from './ledger-rows.js';
import * as q from './ledger-sql.js';
import type { SqlClient } from './sql-client.js';

/** The conference of state recorded before runs named theirs, and of the unscoped ledger. */
export const NO_CONFERENCE = 0;

/**
 * Refuses rows of a run the ledger does not have, before any of them is written; the
 * conference of each run otherwise: its results' hashes and ids are that conference's.
 * Runs are never deleted, so `known` (shared by a ledger's views) asks for each id once; a
 * run naming no conference is asked again, as a later run of its job may adopt it.
 */
export async function requireRuns(
  sql: SqlClient,
  known: Map<string, number>,
  runIds: readonly string[],
): Promise<Map<string, number>> {
  const unique = [...new Set(runIds)];
  const unseen = unique.filter((id) => !known.has(id));
  const conferences = new Map<string, number>();
  if (unseen.length > 0) {
    const found = await sql.query<{ id: string; conference_id: number | string }>(q.SELECT_RUN_CONFERENCES, [
      JSON.stringify(unseen),
    ]);
    for (const { id, conference_id } of found) {
      const conference = toNumber(conference_id);
      conferences.set(id, conference);
      if (conference !== NO_CONFERENCE) known.set(id, conference);
    }
    const missing = unseen.find((id) => !conferences.has(id));
    if (missing !== undefined) throw unknownRunError(missing);
  }
  for (const id of unique) {
    const conference = known.get(id);
    if (conference !== undefined) conferences.set(id, conference);
  }
  return conferences;
}
