import { CODE } from '../../errors/codes.js';
import { offsetMinutesAt } from '../../time/time-zone.js';
import { SourceError } from '../source-error.js';
import { JOB_ZONE_SETTINGS, type ConferenceZone, type ZoneSettingNames } from './conference-zone.js';
import { formatInZone, formatWithOffset, instantInZone, writtenOffsetMinutes } from './zoned-time.js';

/** A date and time without an offset, as ISO 8601 writes it (seconds and fraction optional). */
const LOCAL_ISO = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

export interface ResolvedTime {
  /** ISO 8601 with offset, seconds precision: `2020-12-14T09:00:00+01:00`. */
  iso: string;
  epochMs: number;
  /** Whether the zone (not a written offset) decided the offset. */
  zoned: boolean;
}

/**
 * Turns an export's times into ISO 8601 with an offset, written in the conference's zone
 * (chosen by {@link conferenceZone}: the export's declared zone, else `timezone:`;
 * `override_timezone:` over both). A time without an offset is
 * wall-clock time in that zone. A time with one names its instant, which is then written
 * in that zone (exports often write UTC, `+00:00`, for a conference in Kolkata or Berlin;
 * the platform shows the wall time it is sent). Only a declared zone that disagrees with
 * a written offset other than UTC gives way (the pretalx demo declares `UTC` and writes
 * `+01:00`): the written offset is kept, and counted for a note (docs/sources.md, Times).
 */
export class ScheduleClock {
  readonly zone: string | undefined;
  /** Times whose written offset (not UTC) differs from the declared zone's offset at that instant. */
  disagreements = 0;
  usedZone = false;
  /** The job's zone, when it decides rather than the export's (see {@link conferenceZone}). */
  private readonly setting: string | undefined;

  constructor(
    private readonly where: string,
    decided: Pick<ConferenceZone, 'zone' | 'chosen'>,
    private readonly names: ZoneSettingNames = JOB_ZONE_SETTINGS,
  ) {
    this.zone = decided.zone;
    this.setting = decided.chosen ? decided.zone : undefined;
  }

  resolve(text: string, what: string): ResolvedTime {
    const trimmed = text.trim();
    const written = writtenOffsetMinutes(trimmed);
    if (written !== undefined) {
      const epochMs = Date.parse(trimmed.replace(' ', 'T'));
      if (Number.isNaN(epochMs)) throw this.badTime(trimmed, what);
      const zoneOffset = this.zone === undefined ? undefined : offsetMinutesAt(this.zone, epochMs);
      if (zoneOffset === undefined || zoneOffset === written)
        return { iso: formatWithOffset(epochMs, written), epochMs, zoned: false };
      if (written !== 0 && this.setting === undefined) {
        this.disagreements += 1;
        return { iso: formatWithOffset(epochMs, written), epochMs, zoned: false };
      }
      this.usedZone = true;
      return { iso: formatWithOffset(epochMs, zoneOffset), epochMs, zoned: true };
    }
    // A time that is not ISO 8601 at all is that session's problem, whatever the zone.
    if (!LOCAL_ISO.test(trimmed)) throw this.badTime(trimmed, what);
    if (this.zone === undefined) {
      throw new SourceError(
        `${this.where}: ${what} "${trimmed}" has no UTC offset and the export names no time zone: ` +
          this.names.missingZoneHint,
        { code: CODE.SCHEDULE_TIMEZONE_REQUIRED },
      );
    }
    const epochMs = instantInZone(trimmed, this.zone);
    if (epochMs === undefined) throw this.badTime(trimmed, what);
    this.usedZone = true;
    return { iso: formatInZone(epochMs, this.zone), epochMs, zoned: true };
  }

  /**
   * The instant a time names, or undefined when it cannot be read: for bounds such as a
   * day's start, which place sessions but are not sent, so they are neither counted nor
   * anybody's problem.
   */
  instantOf(text: string | null | undefined): number | undefined {
    const trimmed = (text ?? '').trim();
    if (trimmed === '') return undefined;
    if (writtenOffsetMinutes(trimmed) !== undefined) {
      const epochMs = Date.parse(trimmed.replace(' ', 'T'));
      return Number.isNaN(epochMs) ? undefined : epochMs;
    }
    if (!LOCAL_ISO.test(trimmed) || this.zone === undefined) return undefined;
    return instantInZone(trimmed, this.zone);
  }

  /** The end of a session that lasts `minutes` from `start`, in the same zone or offset. */
  after(start: ResolvedTime, minutes: number): string {
    const epochMs = start.epochMs + minutes * 60_000;
    if (start.zoned && this.zone !== undefined) return formatInZone(epochMs, this.zone);
    return formatWithOffset(epochMs, writtenOffsetMinutes(start.iso) ?? 0);
  }

  private badTime(text: string, what: string): BadScheduleTime {
    return new BadScheduleTime(this.where, what, text);
  }
}

/** One time of one session that cannot be read: that session's problem, not the file's. */
export class BadScheduleTime extends SourceError {
  constructor(
    where: string,
    /** e.g. `session 7 startsAt`. */
    readonly what: string,
    readonly text: string,
  ) {
    super(`${where}: ${what} "${text}" is not an ISO 8601 date and time`, { code: CODE.SCHEDULE_BAD_TIME });
  }
}
