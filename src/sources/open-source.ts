import { isAbsolute, resolve } from 'node:path';
import { redactUrl } from '../log/redaction.js';
import type { Logger } from '../log/logger.js';
import type { SourceConfig, SpeakerJoinConfig } from './source-config.js';
import type { SpeakerJoin } from './schedule/speaker-join.js';
import type { Source } from './source-row.js';
import { createCsvSource } from './csv/csv-source.js';
import { createPretixJsonSource } from './pretix/pretix-json-source.js';
import { connectionUrlFrom } from './sql/connection-url.js';
import { createMysqlSource } from './sql/mysql-source.js';
import { createPostgresSource } from './sql/postgres-source.js';
import { createScheduleSource } from './schedule/schedule-source.js';
import type { ZoneSettingNames } from './schedule/conference-zone.js';

export interface OpenSourceOptions {
  /** Folder that relative paths are resolved against: the job file's folder. */
  baseDir: string;
  /** Where `url_env` names are looked up. @defaultValue `process.env` */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /**
   * How a schedule's zone settings are named in messages: the job file's keys, or the
   * command line's options when the source was given there. @defaultValue the job file's
   */
  zoneSettingNames?: ZoneSettingNames;
  /** The most a query may run, in milliseconds, the server cancelling it past that (`evsync doctor`). @defaultValue none */
  queryTimeoutMs?: number;
}

/**
 * The one way to get a Source from a job step's `source:`. Nothing is opened here: files
 * and connections are opened when `rows()` is iterated, and closed when it ends. A missing
 * connection env var or a query param the job does not give is a ConfigError at once.
 */
export function openSource(config: SourceConfig, options: OpenSourceOptions): Source {
  const inBase = (path: string): string => (isAbsolute(path) ? path : resolve(options.baseDir, path));
  if ('csv' in config) {
    const csv = config.csv;
    return createCsvSource({
      path: inBase(csv.path),
      displayPath: csv.path,
      encoding: 'encoding' in csv ? csv.encoding : undefined,
      delimiter: 'delimiter' in csv ? csv.delimiter : undefined,
      maxRecordChars: 'max_record_chars' in csv ? csv.max_record_chars : undefined,
      logger: options.logger,
    });
  }
  if ('pretix_json' in config) {
    return createPretixJsonSource({
      path: inBase(config.pretix_json.path),
      displayPath: config.pretix_json.path,
    });
  }
  if ('postgres' in config || 'mysql' in config) {
    const [kind, sql] =
      'postgres' in config ? (['postgres', config.postgres] as const) : (['mysql', config.mysql] as const);
    const sqlOptions = {
      url: connectionUrlFrom(options.env ?? process.env, sql.url_env, kind),
      urlEnv: sql.url_env,
      query: sql.query,
      params: sql.params,
      name: sql.name,
      logger: options.logger,
      ...(options.queryTimeoutMs === undefined ? {} : { timeoutMs: options.queryTimeoutMs }),
    };
    return kind === 'postgres' ? createPostgresSource(sqlOptions) : createMysqlSource(sqlOptions);
  }
  const [format, schedule] =
    'sessionize' in config
      ? (['sessionize', config.sessionize] as const)
      : 'pretalx' in config
        ? (['pretalx', config.pretalx] as const)
        : (['frab', config.frab] as const);
  return createScheduleSource({
    format,
    path: schedule.path === undefined ? undefined : inBase(schedule.path),
    url: schedule.url,
    display: schedule.path ?? redactUrl(schedule.url ?? ''),
    timezone: schedule.timezone,
    overrideTimezone: schedule.override_timezone,
    zoneSettingNames: options.zoneSettingNames,
    ...(schedule.speakers === undefined ? {} : { speakers: speakerJoin(schedule.speakers, options) }),
    logger: options.logger,
  });
}

/** The speaker list of a schedule source, opened like any source, with its join columns. */
function speakerJoin(config: SpeakerJoinConfig, options: OpenSourceOptions): SpeakerJoin {
  const { csv, postgres, mysql, id, name, email, first_name, last_name, company } = config;
  const inner: SourceConfig =
    csv !== undefined ? { csv } : postgres !== undefined ? { postgres } : { mysql: mysql! };
  const columns = { email, first_name, last_name, company };
  return {
    source: openSource(inner, options),
    ...(id === undefined ? {} : { id }),
    ...(name === undefined ? {} : { name }),
    columns: Object.fromEntries(Object.entries(columns).filter(([, column]) => column !== undefined)),
  };
}
