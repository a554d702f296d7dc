import type { ConferenceRecord } from '../model/conference.js';
import * as cq from './conference-sql.js';
import type { AdoptedState } from './ledger.js';
import { one, toNumber } from './ledger-rows.js';
import type { SqlClient } from './sql-client.js';

/** The conferences a ledger knows (migration 8, docs/ledger.md "Conferences"), and the state of none. */
export class SqlConferences {
  constructor(private readonly sql: () => SqlClient) {}

  async conferenceFor(baseUrl: string, keyId: number | null): Promise<ConferenceRecord> {
    return toConference(one(await this.sql().query<ConferenceRow>(cq.UPSERT_CONFERENCE, [baseUrl, keyId])));
  }

  async findConference(baseUrl: string): Promise<ConferenceRecord | undefined> {
    const [row] = await this.sql().query<ConferenceRow>(cq.SELECT_CONFERENCE, [baseUrl]);
    return row === undefined ? undefined : toConference(row);
  }

  async listConferences(): Promise<ConferenceRecord[]> {
    return (await this.sql().query<ConferenceRow>(cq.SELECT_CONFERENCES)).map(toConference);
  }

  /** See `Ledger.adoptUnscopedState`: for conference `id`. */
  async adoptUnscopedState(jobName: string, id: number): Promise<AdoptedState> {
    return this.sql().transaction(async (tx) => {
      const runs = (await tx.query(cq.ADOPT_RUNS, [jobName, id])).length;
      const hashes = runs === 0 ? 0 : (await tx.query(cq.ADOPT_HASHES, [jobName, id])).length;
      const ids = runs === 0 ? 0 : (await tx.query(cq.ADOPT_IDS, [jobName, id])).length;
      await tx.query(cq.ADOPT_NOTICES, [jobName, id]);
      const [left] = await tx.query<{ hashes: string | number; ids: string | number; jobs: string | number }>(
        cq.COUNT_UNADOPTED,
      );
      return {
        runs,
        hashes,
        ids,
        left: {
          hashes: toNumber(left?.hashes ?? 0),
          ids: toNumber(left?.ids ?? 0),
          jobs: toNumber(left?.jobs ?? 0),
        },
      };
    });
  }

  async ledgerId(): Promise<string> {
    return one(await this.sql().query<{ ledger_id: string }>(cq.SELECT_LEDGER_ID)).ledger_id;
  }
}

interface ConferenceRow {
  id: number;
  base_url: string;
  key_id: number | null;
}

function toConference(row: ConferenceRow): ConferenceRecord {
  return {
    id: Number(row.id),
    baseUrl: row.base_url,
    keyId: row.key_id === null ? null : Number(row.key_id),
  };
}
