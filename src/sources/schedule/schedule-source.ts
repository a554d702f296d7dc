import { CODE } from '../../errors/codes.js';
import type { Logger } from '../../log/logger.js';
import type { Source, SourceItem } from '../source-row.js';
import { SourceError } from '../source-error.js';
import { c3vocRecords, c3vocScheduleSchema } from './c3voc-records.js';
import { parseScheduleJson, readScheduleText, type ScheduleInput } from './read-schedule-input.js';
import { ScheduleClock } from './schedule-clock.js';
import { conferenceZone, JOB_ZONE_SETTINGS, type ZoneSettingNames } from './conference-zone.js';
import {
  isRecordProblem,
  type LocatedScheduleItem,
  type ScheduleRecord,
  type UncarriedColumns,
} from './schedule-records.js';
import { sessionizeAllSchema, sessionizeRecords } from './sessionize-records.js';
import {
  conflictProblems,
  joinLines,
  joinSpeakers,
  oneSpeakerPerEmail,
  type SpeakerJoin,
} from './speaker-join.js';
import type { z } from 'zod';

export type ScheduleFormat = 'sessionize' | 'pretalx' | 'frab';

export interface ScheduleSourceOptions extends ScheduleInput {
  format: ScheduleFormat;
  /**
   * IANA zone for an export that declares none; the export's declared zone wins over it.
   * @defaultValue the zone the export declares
   */
  timezone?: string | undefined;
  /** IANA zone that wins over the export's declared zone (`override_timezone:`). */
  overrideTimezone?: string | undefined;
  /** How the settings are named in messages. @defaultValue the job file's names */
  zoneSettingNames?: ZoneSettingNames | undefined;
  /** The organiser's speaker list, joined to the export's speakers (see {@link joinSpeakers}). */
  speakers?: SpeakerJoin;
  logger?: Logger;
}

/** How many examples a warning names. */
const EXAMPLES = 3;

/**
 * A Sessionize `All` export, a pretalx/frab c3voc JSON schedule (format 1 or 2), or a frab
 * XML schedule as flat `session`, `speaker` and `speaker_link` records (see
 * SCHEDULE_RECORD_COLUMNS). `pretalx` and `frab` read XML when the file is named `.xml`
 * or starts with `<`, JSON otherwise.
 */
export function createScheduleSource(options: ScheduleSourceOptions): Source {
  const notes: string[] = [];
  const identity: string[] = [];
  return {
    description: `${options.format} schedule ${options.display}`,
    rows: () => {
      notes.length = 0;
      identity.length = 0;
      return readSchedule(options, notes, identity);
    },
    notes: () => [...notes],
    identity: () => [...identity],
  };
}

async function* readSchedule(
  options: ScheduleSourceOptions,
  notes: string[],
  identity: string[],
): AsyncGenerator<SourceItem> {
  const where = `${options.format} schedule ${options.display}`;
  const text = await readScheduleText(options);
  if (text.trim() === '') {
    throw new SourceError(`${where} is empty: export the schedule again, or check the path`, {
      code: CODE.SCHEDULE_EMPTY_FILE,
    });
  }
  let items: LocatedScheduleItem[];
  let clock: ScheduleClock;
  // Sessionize's export and the c3voc JSON carry every column; frab XML does not.
  let uncarried: UncarriedColumns = {};
  if (options.format === 'sessionize') {
    const all = validate(
      sessionizeAllSchema,
      parseScheduleJson(text, where),
      where,
      'give the "All" export (API v2 …/view/All), not Sessions or Speakers',
    );
    clock = clockFor(options, where, undefined, notes);
    items = sessionizeRecords(all, clock).map((item) => ({ item }));
  } else {
    let raw: unknown;
    if (isXml(options, text)) {
      // Lazy: the XML parser loads only for an XML export, not for every job.
      const { frabXmlToC3voc } = await import('./frab-xml.js');
      ({ schedule: raw, uncarried } = frabXmlToC3voc(text, where));
    } else raw = parseScheduleJson(text, where);
    const schedule = validate(
      c3vocScheduleSchema,
      raw,
      where,
      'give the schedule export (pretalx: …/schedule/export/schedule.json or .xml)',
    );
    clock = clockFor(options, where, schedule.schedule.conference.time_zone_name ?? undefined, notes);
    const read = c3vocRecords(schedule, clock, where, options.logger);
    items = read.items;
    const outside = read.notes.outsideDay;
    if (outside.length > 0) {
      options.logger?.warn(
        { source: options.display, sessions: outside.length, examples: outside.slice(0, EXAMPLES) },
        `${outside.length} session(s) start outside the conference day they are listed under: check their date and start in the export`,
      );
    }
  }
  if (clock.disagreements > 0) {
    options.logger?.warn(
      { source: options.display, times: clock.disagreements, declared: clock.zone },
      'the export declares a time zone that disagrees with the offsets written in its times: the written offsets were used',
    );
  }
  const sessions = items.filter(({ item }) => isRecordProblem(item) || item.record_type === 'session').length;
  if (sessions === 0) {
    options.logger?.warn(
      { source: options.display },
      `${where} has no sessions at all: nothing will be synced from it; check that it is the published schedule (not a draft or an empty day list)`,
    );
  }
  let filledFrom: ReadonlyMap<ScheduleRecord<'speaker'>, Record<string, string>> | undefined;
  if (options.speakers !== undefined) {
    const speakers = items
      .map(({ item }) => item)
      .filter(
        (item): item is ScheduleRecord<'speaker'> => !isRecordProblem(item) && item.record_type === 'speaker',
      );
    const joined = await joinSpeakers(speakers, options.speakers, options.logger);
    identity.push(...joinLines(joined, options.speakers.source.description));
    // A speaker whose id the list gives to another name is a failed row, naming both.
    const problems = conflictProblems(joined);
    if (problems.size > 0)
      items = items.map((located) => {
        const problem = problems.get(located.item as ScheduleRecord<'speaker'>);
        return problem === undefined ? located : { ...located, item: problem };
      });
    items = oneSpeakerPerEmail(items, options.logger);
    filledFrom = joined.filledFrom;
  }
  let row = 0;
  for (const { item, line } of items) {
    row += 1;
    const origin =
      line === undefined ? { source: options.display, row } : { source: options.display, row, line };
    if (isRecordProblem(item)) {
      yield { ok: false, origin, ...item.problem };
      continue;
    }
    const notCarried = uncarried[item.record_type];
    const filled = item.record_type === 'speaker' ? filledFrom?.get(item) : undefined;
    yield {
      ok: true,
      origin,
      values: item,
      ...(notCarried?.length ? { uncarried: notCarried } : {}),
      ...(filled !== undefined ? { filledFrom: filled } : {}),
    };
  }
}

/**
 * The clock of the zone {@link conferenceZone} decides. A job zone that contradicts the
 * export's is a note (the validate summary) and a warning (the log of plan and run), with
 * both zones, so that nobody's sessions move by hours unnoticed.
 */
function clockFor(
  options: ScheduleSourceOptions,
  where: string,
  declared: string | undefined,
  notes: string[],
): ScheduleClock {
  const names = options.zoneSettingNames ?? JOB_ZONE_SETTINGS;
  const decided = conferenceZone(
    where,
    { timezone: options.timezone, override: options.overrideTimezone, names },
    declared,
  );
  if (decided.contradiction !== undefined) {
    notes.push(decided.contradiction);
    options.logger?.warn({ source: options.display }, `time zone: ${decided.contradiction}`);
  }
  return new ScheduleClock(where, decided, names);
}

/** `.xml` by name, else by the first character (pretalx serves both from one URL pattern). */
function isXml(input: ScheduleInput, text: string): boolean {
  const name = (input.path ?? input.url ?? '').replace(/[?#].*$/, '').toLowerCase();
  return name.endsWith('.xml') || text.trimStart().startsWith('<');
}

function validate<T extends z.ZodType>(schema: T, value: unknown, where: string, hint: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`)
    .join('; ');
  throw new SourceError(`${where} does not look like the expected export (${problems}): ${hint}`, {
    code: CODE.SCHEDULE_UNEXPECTED_SHAPE,
  });
}
