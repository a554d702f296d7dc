import { CODE } from '../../errors/codes.js';
import type { Logger } from '../../log/logger.js';
import type { Source, SourceItem } from '../source-row.js';
import { SourceError } from '../source-error.js';
import { c3vocRecords, c3vocScheduleSchema } from './c3voc-records.js';
import { frabXmlToC3voc } from './frab-xml.js';
import { parseScheduleJson, readScheduleText, type ScheduleInput } from './read-schedule-input.js';
import { ScheduleClock } from './schedule-clock.js';
import { isRecordProblem, type LocatedScheduleItem } from './schedule-records.js';
import { sessionizeAllSchema, sessionizeRecords } from './sessionize-records.js';
import type { z } from 'zod';

export type ScheduleFormat = 'sessionize' | 'pretalx' | 'frab';

export interface ScheduleSourceOptions extends ScheduleInput {
  format: ScheduleFormat;
  /** IANA zone for times without an offset. @defaultValue the zone the export declares */
  timezone?: string;
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
  return {
    description: `${options.format} schedule ${options.display}`,
    rows: () => readSchedule(options),
  };
}

async function* readSchedule(options: ScheduleSourceOptions): AsyncGenerator<SourceItem> {
  const where = `${options.format} schedule ${options.display}`;
  const text = await readScheduleText(options);
  if (text.trim() === '') {
    throw new SourceError(`${where} is empty: export the schedule again, or check the path`, {
      code: CODE.SCHEDULE_EMPTY_FILE,
    });
  }
  let items: LocatedScheduleItem[];
  let clock: ScheduleClock;
  if (options.format === 'sessionize') {
    const all = validate(
      sessionizeAllSchema,
      parseScheduleJson(text, where),
      where,
      'give the "All" export (API v2 …/view/All), not Sessions or Speakers',
    );
    clock = new ScheduleClock(where, options.timezone, undefined);
    items = sessionizeRecords(all, clock).map((item) => ({ item }));
  } else {
    const raw = isXml(options, text) ? frabXmlToC3voc(text, where) : parseScheduleJson(text, where);
    const schedule = validate(
      c3vocScheduleSchema,
      raw,
      where,
      'give the schedule export (pretalx: …/schedule/export/schedule.json or .xml)',
    );
    clock = new ScheduleClock(
      where,
      options.timezone,
      schedule.schedule.conference.time_zone_name ?? undefined,
    );
    const read = c3vocRecords(schedule, clock, where);
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
  let row = 0;
  for (const { item, line } of items) {
    row += 1;
    const origin =
      line === undefined ? { source: options.display, row } : { source: options.display, row, line };
    yield isRecordProblem(item) ? { ok: false, origin, ...item.problem } : { ok: true, origin, values: item };
  }
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
