import type { ErrorCode } from '../../errors/codes.js';
import type { IntentKind } from '../../model/intent.js';
import { BadScheduleTime } from './schedule-clock.js';

/**
 * The flat records that schedule sources (Sessionize, pretalx, frab) yield. A Source yields
 * one kind of row, so every record carries `record_type` and the columns of its type; every
 * column is present on every record of that type, as a string (`''` when the export has
 * nothing). Mappings (`mappings/sessionize.yaml`, `mappings/pretalx.yaml`) select on
 * `record_type` and read these columns.
 */
export const SCHEDULE_RECORD_TYPES = ['session', 'speaker', 'speaker_link'] as const;
export type ScheduleRecordType = (typeof SCHEDULE_RECORD_TYPES)[number];

export const SCHEDULE_RECORD_COLUMNS = {
  session: [
    'record_type',
    /** The export's id as a string (Sessionize: numeric or GUID; pretalx/frab: the event id). */
    'id',
    'guid',
    'title',
    'subtitle',
    /** Short text (pretalx `abstract`); '' for Sessionize. */
    'abstract',
    /** Plain text as exported; CRLF normalised to `\n`. */
    'description',
    /** ISO 8601 with offset, e.g. `2020-12-14T09:00:00+01:00`. */
    'start',
    'end',
    'duration_minutes',
    /** IANA zone or `UTC` that times without an offset were read in; '' when every time had an offset. */
    'timezone',
    'room',
    'track',
    /** Comma-separated: Sessionize categories other than track, level, language and format. */
    'tags',
    'language',
    /** Sessionize "Session format", pretalx/frab `type`. */
    'format',
    'level',
    /** `true` for breaks, lunch and other sessions without speakers by design, else `false`. */
    'is_service_session',
    'url',
    /** Comma-separated speaker ids, in the export's order. */
    'speaker_ids',
    /** JSON object of the export's custom questions: `{"question text": "answer"}`; `{}` when none. */
    'answers',
  ],
  speaker: [
    'record_type',
    /**
     * Sessionize: the GUID; pretalx: the numeric person `id` (JSON and XML both write it),
     * else the `code`, else `guid`, else `id` (docs/sources.md).
     */
    'id',
    /** pretalx's person `code` (its speaker export's ID), when the export writes one; else ''. */
    'code',
    'first_name',
    'last_name',
    'full_name',
    /** Rarely public in an export: '' when absent. */
    'email',
    'bio',
    'tagline',
    'company',
    'photo_url',
    'website',
    'twitter',
    'linkedin',
    'blog',
    /** JSON array of `{"title","url","type"}`, every link of the export. */
    'links',
    /** Comma-separated session ids (always strings, whatever the export wrote). */
    'session_ids',
    /** JSON object of the export's custom questions: `{"question text": "answer"}`; `{}` when none. */
    'answers',
  ],
  speaker_link: [
    'record_type',
    'session_id',
    'speaker_id',
    /** `speaker`, or `moderator` when the export says so. */
    'role',
    /** 1-based order of the speaker in the session. */
    'position',
  ],
} as const satisfies Record<ScheduleRecordType, readonly string[]>;

export type ScheduleRecord<T extends ScheduleRecordType> = Record<
  (typeof SCHEDULE_RECORD_COLUMNS)[T][number],
  string
> & { record_type: T };

/**
 * Per record type, the columns an export's format cannot carry: they are `''` on every record
 * of the type whatever the schedule says, and rows name them in `SourceRow.uncarried`.
 */
export type UncarriedColumns = Partial<Record<ScheduleRecordType, readonly string[]>>;

/** A record with every column of its type, `''` for what `values` does not give. */
export function scheduleRecord<T extends ScheduleRecordType>(
  type: T,
  values: Partial<Record<(typeof SCHEDULE_RECORD_COLUMNS)[T][number], string | undefined>>,
): ScheduleRecord<T> {
  const record: Record<string, string> = {};
  const given = values as Record<string, string | undefined>;
  for (const column of SCHEDULE_RECORD_COLUMNS[type]) record[column] = given[column] ?? '';
  record.record_type = type;
  return record as ScheduleRecord<T>;
}

/** A session left out because the export got it wrong; readers yield it as a row problem. */
export interface ScheduleRecordProblem {
  problem: { code: ErrorCode; message: string; kind?: IntentKind };
}

/** A record or a problem, with the line of the export it comes from when the reader knows it. */
export interface LocatedScheduleItem {
  item:
    | ScheduleRecord<'session'>
    | ScheduleRecord<'speaker'>
    | ScheduleRecord<'speaker_link'>
    | ScheduleRecordProblem;
  line?: number | undefined;
}

/**
 * The problem of a session whose time cannot be read, or rethrows: anything else is the
 * whole file's problem. Its speaker links are left out with it (their session is missing).
 */
export function sessionProblem(error: unknown, links: number, title = ''): ScheduleRecordProblem {
  if (!(error instanceof BadScheduleTime)) throw error;
  const left =
    links === 0 ? 'the session is left out' : `the session and its ${links} speaker link(s) are left out`;
  const named = title === '' ? '' : ` (session "${title}")`;
  return {
    problem: {
      code: error.code,
      message: `${error.what} "${error.text}"${named} is not an ISO 8601 date and time (like 2026-06-01T09:30:00, with or without an offset): ${left}; fix the time in the export`,
    },
  };
}

export function isRecordProblem(record: object): record is ScheduleRecordProblem {
  return 'problem' in record;
}
