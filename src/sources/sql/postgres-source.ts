import type pg from 'pg';
import { CODE } from '../../errors/codes.js';
import { messageOf } from '../../errors/evsync-error.js';
import type { Logger } from '../../log/logger.js';
import { redactUrl } from '../../log/redaction.js';
import type { Source, SourceItem } from '../source-row.js';
import { SourceError } from '../source-error.js';
import { bindNamedParams, describeQuery, type SqlParamValue } from './named-params.js';
import { assertReadOnlyQuery } from './read-only-query.js';
import { assertDistinctColumns } from './distinct-columns.js';
import { Base64Columns, isoLocalDateTime, plainRecord } from './plain-value.js';

export interface SqlSourceOptions {
  /** The connection URL (read from the env var by the caller; never logged). */
  url: string;
  /** Name of the env var it came from, for messages. */
  urlEnv: string;
  query: string;
  params?: Readonly<Record<string, SqlParamValue>>;
  /** Short name for origins. @defaultValue the first words of the query */
  name?: string;
  /** Rows per FETCH: what memory holds at once. @defaultValue 1000 */
  batchSize?: number;
  /**
   * The most one statement may run, in milliseconds: the server cancels it past that
   * (`statement_timeout`; MariaDB's `max_statement_time`, MySQL's `max_execution_time`),
   * so that a check that gives up leaves no query running. @defaultValue none
   */
  timeoutMs?: number;
  logger?: Logger;
}

const OID = { date: 1082, time: 1083, timestamp: 1114 } as const;

/**
 * Dates and zone-less timestamps stay the text PostgreSQL sent (made ISO): turning them into
 * a JS Date would invent the machine's offset.
 */
function typeParsers(types: typeof pg.types) {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
      if (oid === OID.date || oid === OID.time) return (value) => value;
      if (oid === OID.timestamp) return isoLocalDateTime;
      return types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
    },
  };
}

/** A query read through a server-side cursor in a READ ONLY transaction, `batchSize` rows at a time. */
export function createPostgresSource(options: SqlSourceOptions): Source {
  const label = describeQuery(options.query, options.name);
  assertReadOnlyQuery(options.query, 'postgres', label);
  const bound = bindNamedParams(options.query, options.params ?? {}, 'postgres');
  const convert = "convert_from(col, 'LATIN1')";
  let base64 = new Base64Columns(convert);
  return {
    description: `PostgreSQL ${label} (URL from ${options.urlEnv})`,
    rows: () => readPostgres(options, label, bound.text, bound.values, (base64 = new Base64Columns(convert))),
    notes: () => base64.notes(),
  };
}

async function* readPostgres(
  options: SqlSourceOptions,
  label: string,
  text: string,
  values: SqlParamValue[],
  base64: Base64Columns,
): AsyncGenerator<SourceItem> {
  // Lazy: the pg driver loads only for a job that reads PostgreSQL, not at every start.
  const { default: driver } = await import('pg');
  const client = new driver.Client({ connectionString: options.url, types: typeParsers(driver.types) });
  client.on('error', (error) =>
    options.logger?.warn({ err: redactUrl(messageOf(error)) }, 'postgres connection error'),
  );
  try {
    await client.connect();
  } catch (error) {
    throw new SourceError(
      `cannot connect to PostgreSQL with the URL in ${options.urlEnv}: ${redactUrl(messageOf(error))}`,
      { code: CODE.SOURCE_DB_UNREACHABLE, retryable: true },
    );
  }
  const batchSize = options.batchSize ?? 1000;
  let row = 0;
  try {
    await run(client, 'BEGIN TRANSACTION READ ONLY', [], label);
    if (options.timeoutMs !== undefined)
      await run(
        client,
        `SET LOCAL statement_timeout = ${Math.max(1, Math.round(options.timeoutMs))}`,
        [],
        label,
      );
    // The extended protocol takes one statement only: `…; COMMIT; DELETE …` cannot leave
    // the read-only transaction, whether or not the query has params.
    await run(client, `DECLARE evsync_source NO SCROLL CURSOR FOR ${text}`, values, label, 'extended');
    for (;;) {
      const result = await run(client, `FETCH ${batchSize} FROM evsync_source`, [], label);
      // Every FETCH describes the same columns, also when it has no rows: the first says it.
      if (row === 0)
        assertDistinctColumns(
          result.fields.map((field) => field.name),
          label,
          'PostgreSQL',
        );
      for (const record of result.rows) {
        row += 1;
        yield { ok: true, origin: { source: label, row }, values: plainRecord(record, base64) };
      }
      if (result.rows.length < batchSize) break;
    }
    options.logger?.debug({ query: label, rows: row }, 'postgres source read');
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

async function run(
  client: pg.Client,
  text: string,
  values: SqlParamValue[],
  label: string,
  queryMode?: 'extended',
): Promise<pg.QueryResult<Record<string, unknown>>> {
  try {
    return await client.query<Record<string, unknown>>({ text, values, ...(queryMode ? { queryMode } : {}) });
  } catch (error) {
    throw new SourceError(
      `${label} failed in PostgreSQL: ${redactUrl(messageOf(error))}: fix the query in the job file`,
      {
        code: CODE.SOURCE_QUERY_FAILED,
        cause: error,
      },
    );
  }
}
