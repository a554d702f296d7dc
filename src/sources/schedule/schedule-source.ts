import { CODE } from '../../errors/codes.js';
import type { Logger } from '../../log/logger.js';
import type { Source, SourceItem } from '../source-row.js';
import { SourceError } from '../source-error.js';
import { c3vocRecords, c3vocScheduleSchema } from './c3voc-records.js';
import { frabXmlToC3voc } from './frab-xml.js';
import { parseScheduleJson, readScheduleText, type ScheduleInput } from './read-schedule-input.js';
import { ScheduleClock } from './schedule-clock.js';
import { isRecordProblem } from './schedule-records.js';
import { sessionizeAllSchema, sessionizeRecords } from './sessionize-records.js';
import type { z } from 'zod';

export type ScheduleFormat = 'sessionize' | 'pretalx' | 'frab';

export interface ScheduleSourceOptions extends ScheduleInput {
  format: ScheduleFormat;
  /** IANA zone for times without an offset. @defaultValue the zone the export declares */
  timezone?: string;
  logger?: Logger;
}

/**
 * A Sessionize `All` export, a pretalx/frab c3voc JSON schedule, or a frab XML schedule as
 * flat `session`, `speaker` and `speaker_link` records (see SCHEDULE_RECORD_COLUMNS).
 * `pretalx` reads XML too when the file starts with `<`.
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
  let records;
  let clock: ScheduleClock;
  if (options.format === 'sessionize') {
    const all = validate(
      sessionizeAllSchema,
      parseScheduleJson(text, where),
      where,
      'give the "All" export (API v2 …/view/All), not Sessions or Speakers',
    );
    clock = new ScheduleClock(where, options.timezone, undefined);
    records = sessionizeRecords(all, clock);
  } else {
    const raw = text.trimStart().startsWith('<')
      ? frabXmlToC3voc(text, where)
      : parseScheduleJson(text, where);
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
    records = c3vocRecords(schedule, clock);
  }
  if (clock.disagreements > 0) {
    options.logger?.warn(
      { source: options.display, times: clock.disagreements, declared: clock.zone },
      'the export declares a time zone that disagrees with the offsets written in its times: the written offsets were used',
    );
  }
  let row = 0;
  for (const record of records) {
    row += 1;
    const origin = { source: options.display, row };
    yield isRecordProblem(record)
      ? { ok: false, origin, ...record.problem }
      : { ok: true, origin, values: record };
  }
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
