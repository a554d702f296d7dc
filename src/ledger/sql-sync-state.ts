import type { FlatParams } from '../model/params.js';
import type { IntentKind } from '../model/intent.js';
import type { HashEntry, PlatformIdEntry } from '../model/sync-state.js';
import type { HashTailPage, KeyRefusal, KeyRemoval } from './ledger.js';
import * as q from './sync-state-sql.js';
import { toNumber } from './ledger-rows.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';
import { storableJson } from './storable-json.js';

/** Rows per bulk statement: large enough to amortise a round trip, small enough for memory. */
const CHUNK = 1000;
/** Keys per look-up statement: a plan may ask about every user of a big import. */
const LOOKUP = 5_000;
/** Ids per page of `idPages`: about 1 MB a page. */
const ID_PAGE = 20_000;
/** Hash tails per page of `hashTails`: about 1 MB a page. */
const TAIL_PAGE = 20_000;

/**
 * The sync state of one conference (docs/ledger.md, "Conferences"): its id map and its
 * last-synced hashes. `conferenceId` 0 is the state recorded before runs named their
 * conference. The ledger's state methods delegate here.
 */
export class SqlSyncState {
  constructor(
    private readonly sql: () => SqlClient,
    private readonly conferenceId: number,
  ) {}

  async getPlatformId(kind: IntentKind, clientId: string): Promise<number | undefined> {
    const rows = await this.sql().query<{ platform_id: string | number }>(q.SELECT_ID, [
      kind,
      clientId,
      this.conferenceId,
    ]);
    return rows[0] === undefined ? undefined : toNumber(rows[0].platform_id);
  }

  async platformIdsOf(kind: IntentKind, clientIds: readonly string[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    await this.lookUp<{ client_id: string; platform_id: string | number }>(
      q.SELECT_IDS_OF,
      kind,
      clientIds,
      (row) => ids.set(row.client_id, toNumber(row.platform_id)),
    );
    return ids;
  }

  async keysSharingIds(kind: IntentKind): Promise<string[][]> {
    const rows = await this.sql().query<{ keys: string[] }>(q.SELECT_KEYS_SHARING_IDS, [
      kind,
      this.conferenceId,
    ]);
    return rows.map((row) => row.keys);
  }

  async setPlatformIds(entries: readonly PlatformIdEntry[]): Promise<void> {
    const rows = dedupe(entries.map((e) => ({ kind: e.kind, key: e.clientId, platform_id: e.platformId })));
    await this.sql().transaction((tx) => this.inChunks(tx, q.UPSERT_IDS, rows));
  }

  async loadIdMap(kind: IntentKind): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    for await (const page of this.idPages(kind)) for (const [key, id] of page) ids.set(key, id);
    return ids;
  }

  idPages(kind: IntentKind): AsyncIterable<Array<[clientId: string, platformId: number]>> {
    return this.keyPages(
      kind,
      ID_PAGE,
      q.SELECT_ID_PAGE,
      (row: { client_id: string; platform_id: string | number }) => [
        row.client_id,
        toNumber(row.platform_id),
      ],
    );
  }

  async removePlatformIds(kind: IntentKind, clientIds: readonly string[]): Promise<void> {
    const rows = clientIds.map((key) => ({ kind, key }));
    await this.sql().transaction((tx) => this.inChunks(tx, q.DELETE_IDS, rows));
  }

  async loadHashes(kind: IntentKind): Promise<Map<string, string>> {
    const rows = await this.sql().query<{ key: string; hash: string }>(q.SELECT_HASHES, [
      kind,
      this.conferenceId,
    ]);
    return new Map(rows.map((row) => [row.key, row.hash]));
  }

  /**
   * Each page is asked for as soon as the one before has come, before that one is handed
   * over: the ledger reads the next page while the plan indexes this one.
   */
  async *hashTails(kind: IntentKind): AsyncIterable<HashTailPage> {
    const page = (after: string): Promise<HashTailPage[]> =>
      this.sql().query<HashTailPage>(q.SELECT_HASH_TAILS, [kind, this.conferenceId, after, TAIL_PAGE]);
    let asked: Promise<HashTailPage[]> | undefined = page('');
    try {
      while (asked !== undefined) {
        const rows: HashTailPage[] = await asked;
        const keys: string[] = rows[0]?.keys ?? [];
        asked = keys.length < TAIL_PAGE ? undefined : page(keys[keys.length - 1]!);
        // A reader that stops early leaves the next page unread, not unhandled.
        asked?.catch(() => undefined);
        if (keys.length > 0) yield { keys, tails: rows[0]!.tails };
      }
    } finally {
      await asked?.catch(() => undefined);
    }
  }

  /**
   * Runs a look-up statement of `$1` kind, `$2` keys (text[]) and `$3` conference for these
   * keys, {@link LOOKUP} keys a statement, handing each row to `each`.
   */
  private async lookUp<R extends object>(
    statement: string,
    kind: IntentKind,
    keys: readonly string[],
    each: (row: R) => void,
  ): Promise<void> {
    for (let start = 0; start < keys.length; start += LOOKUP) {
      const rows = await this.sql().query<R>(statement, [
        kind,
        keys.slice(start, start + LOOKUP),
        this.conferenceId,
      ]);
      for (const row of rows) each(row);
    }
  }

  /**
   * The pages of a statement of `$1` kind, `$2` conference, `$3` the last key of the page
   * before and `$4` the page's size, each entry keyed by its first element, from the first
   * key on until a page comes back short.
   */
  private async *keyPages<R extends object, T extends [string, unknown]>(
    kind: IntentKind,
    size: number,
    statement: string,
    fromRow: (row: R) => T,
  ): AsyncIterable<T[]> {
    let after = '';
    for (;;) {
      const params = [kind, this.conferenceId, after, size];
      const page = (await this.sql().query<R>(statement, params)).map(fromRow);
      if (page.length > 0) yield page;
      if (page.length < size) return;
      after = page[page.length - 1]![0];
    }
  }

  async hashesOf(kind: IntentKind, keys: readonly string[]): Promise<Map<string, string>> {
    const hashes = new Map<string, string>();
    await this.lookUp<{ key: string; hash: string }>(q.SELECT_HASHES_OF, kind, keys, (row) =>
      hashes.set(row.key, row.hash),
    );
    return hashes;
  }

  async syncedParamNames(kind: IntentKind, keys: readonly string[]): Promise<Map<string, string[]>> {
    const names = new Map<string, string[]>();
    await this.lookUp<{ key: string; names: string[] }>(q.SELECT_SYNCED_PARAM_NAMES, kind, keys, (row) =>
      names.set(row.key, row.names),
    );
    return names;
  }

  async lastRemovals(kind: IntentKind, keys: readonly string[]): Promise<Map<string, KeyRemoval>> {
    const found = new Map<string, KeyRemoval>();
    await this.lookUp<{
      key: string;
      run_id: string;
      action: KeyRemoval['action'];
      recorded_at: Date | string;
    }>(q.SELECT_LAST_REMOVALS, kind, keys, (row) =>
      found.set(row.key, { runId: row.run_id, action: row.action, at: new Date(row.recorded_at) }),
    );
    return found;
  }

  async lastRefusals(kind: IntentKind, keys: readonly string[]): Promise<Map<string, KeyRefusal>> {
    const found = new Map<string, KeyRefusal>();
    await this.lookUp<{
      key: string;
      run_id: string;
      error_message: string | null;
      recorded_at: Date | string;
    }>(q.SELECT_LAST_REFUSALS, kind, keys, (row) =>
      found.set(row.key, {
        runId: row.run_id,
        at: new Date(row.recorded_at),
        message: row.error_message ?? 'invalid data',
      }),
    );
    return found;
  }

  async syncedParams(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>> {
    const params = new Map<string, FlatParams>();
    await this.lookUp<{ key: string; params: FlatParams | string }>(
      q.SELECT_SYNCED_PARAMS,
      kind,
      keys,
      (row) => params.set(row.key, parsedParams(row.params)),
    );
    return params;
  }

  async accountsLastSent(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>> {
    const params = new Map<string, FlatParams>();
    await this.lookUp<{ key: string; params: FlatParams | string }>(
      q.SELECT_ACCOUNTS_LAST_SENT,
      kind,
      keys,
      (row) => params.set(row.key, parsedParams(row.params)),
    );
    return params;
  }

  async removedKeysLastSent(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>> {
    const params = new Map<string, FlatParams>();
    await this.lookUp<{ key: string; params: FlatParams | string }>(
      q.SELECT_REMOVED_KEYS_LAST_SENT,
      kind,
      keys,
      (row) => params.set(row.key, parsedParams(row.params)),
    );
    return params;
  }

  async deletedAccountsLastSent(kind: IntentKind, keys: readonly string[]): Promise<Map<string, FlatParams>> {
    const params = new Map<string, FlatParams>();
    await this.lookUp<{ key: string; params: FlatParams | string }>(
      q.SELECT_DELETED_ACCOUNTS_LAST_SENT,
      kind,
      keys,
      (row) => params.set(row.key, parsedParams(row.params)),
    );
    return params;
  }

  async setHashes(entries: readonly HashEntry[]): Promise<void> {
    const rows = dedupe(entries.map((e) => ({ kind: e.kind, key: e.key, hash: e.hash, run_id: e.runId })));
    await this.sql().transaction((tx) => this.inChunks(tx, q.UPSERT_HASHES, rows));
  }

  async removeHashes(kind: IntentKind, keys: readonly string[]): Promise<void> {
    const rows = keys.map((key) => ({ kind, key }));
    await this.sql().transaction((tx) => this.inChunks(tx, q.DELETE_HASHES, rows));
  }

  async staleHashes(kind: IntentKind, keys: readonly string[]): Promise<void> {
    const rows = keys.map((key) => ({ kind, key }));
    await this.sql().transaction((tx) => this.inChunks(tx, q.STALE_HASHES, rows));
  }

  async knownKeys(kind: IntentKind, jobName: string): Promise<string[]> {
    return (
      await this.sql().query<{ key: string }>(q.SELECT_KNOWN_KEYS, [kind, jobName, this.conferenceId])
    ).map((row) => row.key);
  }

  private async inChunks(tx: SqlExecutor, statement: string, rows: readonly object[]): Promise<void> {
    for (let start = 0; start < rows.length; start += CHUNK) {
      await tx.query(statement, [storableJson(rows.slice(start, start + CHUNK)), this.conferenceId]);
    }
  }
}

/** Params as a driver gives a jsonb column: parsed already, or as text. */
function parsedParams(params: FlatParams | string): FlatParams {
  return typeof params === 'string' ? (JSON.parse(params) as FlatParams) : params;
}

/** Last entry wins per (kind, key): one upsert statement cannot touch a row twice. */
export function dedupe<T extends { kind: string; key: string }>(rows: readonly T[]): T[] {
  return [...new Map(rows.map((row) => [`${row.kind}\u0000${row.key}`, row])).values()];
}
