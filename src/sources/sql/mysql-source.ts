import type { Connection, FieldPacket, TypeCastField } from 'mysql2';
import { CODE } from '../../errors/codes.js';
import { messageOf } from '../../errors/evsync-error.js';
import { redactUrl } from '../../log/redaction.js';
import type { Source, SourceItem } from '../source-row.js';
import { SourceError } from '../source-error.js';
import { bindNamedParams, describeQuery, type SqlParamValue } from './named-params.js';
import { assertReadOnlyQuery } from './read-only-query.js';
import { assertDistinctColumns } from './distinct-columns.js';
import { Base64Columns, bytesText, isoLocalDateTime, plainRecord } from './plain-value.js';
import type { SqlSourceOptions } from './postgres-source.js';

/**
 * DATETIME has no zone: kept as ISO text without an offset. TIMESTAMP is stored in UTC and
 * the session runs in UTC, so it gets `Z`. Big integers and decimals arrive as strings.
 * A zero date (`0000-00-00`, or a zero month or day, which MySQL stores when its SQL mode
 * allows) is no date: NULL, as MySQL's own connectors read it (`zeroDateTimeBehavior`).
 * BIT is a number (`BIT(1)` 0 or 1); wider than 53 bits, a string of its digits, as BIGINT.
 * Binary strings (VARBINARY, BINARY, BLOB) arrive as bytes and are made text by `plainRecord`;
 * MariaDB's JSON is LONGTEXT marked `format=json` in the column's metadata, which the
 * driver asks for and reads as JSON, as it reads MySQL's JSON type.
 */
function typeCast(field: TypeCastField, next: () => unknown): unknown {
  switch (field.type) {
    case 'DATETIME':
    case 'TIMESTAMP': {
      const text = field.string();
      if (text === null || isZeroDate(text)) return null;
      return field.type === 'TIMESTAMP' ? `${isoLocalDateTime(text)}Z` : isoLocalDateTime(text);
    }
    case 'DATE':
    case 'NEWDATE': {
      const text = field.string();
      return text === null || isZeroDate(text) ? null : text;
    }
    case 'BIT':
      return bitValue(field.buffer(), field.length);
    case 'STRING': {
      // BINARY(n) pads its value with zero bytes to n: text is read without them.
      const value = next();
      if (!Buffer.isBuffer(value)) return value;
      let end = value.length;
      while (end > 0 && value[end - 1] === 0) end -= 1;
      return (end < value.length ? bytesText(value.subarray(0, end)) : undefined) ?? value;
    }
    default:
      return next();
  }
}

/** `0000-00-00…`, `2024-00-00`, `2024-05-00`: a month or a day of zero. */
function isZeroDate(text: string): boolean {
  return /^\d{4}-(00-\d{2}|\d{2}-00)/.test(text);
}

/** A BIT(n) value's bytes, most significant first, as a number (a string past 2^53). */
function bitValue(bytes: Buffer | null, bits: number): number | string | null {
  if (bytes === null) return null;
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return bits <= 53 ? Number(value) : value.toString();
}

/** A query streamed row by row (the driver pauses the socket when we fall behind) in a READ ONLY transaction. */
export function createMysqlSource(options: SqlSourceOptions): Source {
  const label = describeQuery(options.query, options.name);
  assertReadOnlyQuery(options.query, 'mysql', label);
  const bound = bindNamedParams(options.query, options.params ?? {}, 'mysql');
  const convert = 'CONVERT(col USING latin1)';
  let base64 = new Base64Columns(convert);
  return {
    description: `MySQL ${label} (URL from ${options.urlEnv})`,
    rows: () => readMysql(options, label, bound.text, bound.values, (base64 = new Base64Columns(convert))),
    notes: () => base64.notes(),
  };
}

async function* readMysql(
  options: SqlSourceOptions,
  label: string,
  text: string,
  values: SqlParamValue[],
  base64: Base64Columns,
): AsyncGenerator<SourceItem> {
  // Lazy: the MySQL driver loads only for a job that reads MySQL, not at every start.
  const { default: mysql } = await import('mysql2');
  let connection: Connection;
  try {
    connection = mysql.createConnection({
      uri: withoutMultipleStatements(options.url),
      // One statement per query, whatever the URL asks: with several, `COMMIT; DELETE …`
      // would end the read-only transaction and write (docs/sources.md).
      multipleStatements: false,
      flags: ['-MULTI_STATEMENTS'],
      supportBigNumbers: true,
      bigNumberStrings: true,
      timezone: 'Z',
      typeCast,
    });
    await new Promise<void>((resolve, reject) =>
      connection.connect((error) => (error ? reject(error) : resolve())),
    );
  } catch (error) {
    throw new SourceError(
      `cannot connect to MySQL with the URL in ${options.urlEnv}: ${redactUrl(messageOf(error))}`,
      {
        code: CODE.SOURCE_DB_UNREACHABLE,
        retryable: true,
      },
    );
  }
  connection.on('error', (error) =>
    options.logger?.warn({ err: redactUrl(messageOf(error)) }, 'mysql connection error'),
  );
  let row = 0;
  let completed = false;
  try {
    await exec(connection, "SET time_zone = '+00:00'", label);
    if (options.timeoutMs !== undefined) await limitStatementTime(connection, options.timeoutMs, label);
    // The session too, so that no statement of this connection can write outside the transaction.
    await exec(connection, 'SET SESSION TRANSACTION READ ONLY', label);
    await exec(connection, 'START TRANSACTION READ ONLY', label);
    const stream = connection.query(text, values).stream({ highWaterMark: options.batchSize ?? 1000 });
    // The columns come before the first row, also for a result without rows: a repeated
    // name stops the stream there, before a row is used.
    stream.once('fields', (fields: FieldPacket[] | undefined) => {
      try {
        assertDistinctColumns(
          (fields ?? []).map((field) => field.name),
          label,
          'MySQL',
        );
      } catch (error) {
        stream.destroy(error as Error);
      }
    });
    try {
      for await (const record of stream as AsyncIterable<Record<string, unknown>>) {
        row += 1;
        yield { ok: true, origin: { source: label, row }, values: plainRecord(record, base64) };
      }
    } catch (error) {
      throw error instanceof SourceError ? error : queryFailed(label, error);
    } finally {
      stream.destroy();
    }
    completed = true;
    options.logger?.debug({ query: label, rows: row }, 'mysql source read');
  } finally {
    if (completed) {
      await exec(connection, 'ROLLBACK', label).catch(() => undefined);
      await new Promise<void>((resolve) => connection.end(() => resolve()));
    } else {
      // A reader that stopped early leaves the streaming query paused mid-result: only
      // closing the socket frees the connection (the server rolls back on its own).
      connection.destroy();
    }
  }
}

/**
 * The server cancels a statement past `ms`: MariaDB names the setting `max_statement_time`
 * (seconds), MySQL `max_execution_time` (milliseconds, SELECTs only); each refuses the other's.
 */
async function limitStatementTime(connection: Connection, ms: number, label: string): Promise<void> {
  try {
    await exec(connection, `SET SESSION max_statement_time = ${Math.max(0.001, ms / 1000)}`, label);
  } catch {
    await exec(connection, `SET SESSION max_execution_time = ${Math.max(1, Math.round(ms))}`, label);
  }
}

/**
 * The URL without the options that would let one query run several statements: mysql2 takes
 * an option from the URL over one given beside it when the latter is false.
 */
function withoutMultipleStatements(url: string): string {
  const parsed = new URL(url);
  for (const key of [...parsed.searchParams.keys()]) {
    if (/^(multiplestatements|flags)$/i.test(key)) parsed.searchParams.delete(key);
  }
  return parsed.toString();
}

function exec(connection: Connection, text: string, label: string): Promise<FieldPacket[] | undefined> {
  return new Promise((resolve, reject) =>
    connection.query(text, (error, _result, fields) =>
      error ? reject(queryFailed(label, error)) : resolve(fields),
    ),
  );
}

function queryFailed(label: string, error: unknown): SourceError {
  return new SourceError(
    `${label} failed in MySQL: ${redactUrl(messageOf(error))}: fix the query in the job file`,
    {
      code: CODE.SOURCE_QUERY_FAILED,
      cause: error,
    },
  );
}
