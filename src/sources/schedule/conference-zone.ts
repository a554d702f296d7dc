import { checkTimeZone } from './zoned-time.js';

/** How the person gives the zone settings: names used in messages. */
export interface ZoneSettingNames {
  /** The zone for an export that declares none: `timezone:` in a job, `--timezone` on the command line. */
  timezone: string;
  /** The zone that wins over the export's: `override_timezone:` / `--override-timezone`. */
  override: string;
  /** What to do when a time has no offset and no zone is known. */
  missingZoneHint: string;
}

export const JOB_ZONE_SETTINGS: ZoneSettingNames = {
  timezone: 'timezone:',
  override: 'override_timezone:',
  missingZoneHint: 'set timezone: in the source (an IANA zone such as Europe/Berlin)',
};

export const COMMAND_LINE_ZONE_SETTINGS: ZoneSettingNames = {
  timezone: '--timezone',
  override: '--override-timezone',
  missingZoneHint: 'give --timezone ZONE (an IANA zone such as Europe/Berlin)',
};

/** What a job says of a schedule's zone (docs/sources.md, Times). */
export interface ZoneSettings {
  /** Used when the export declares no zone: the export's own zone wins over it. */
  timezone?: string | undefined;
  /** Used whatever the export declares: the job means to override it. */
  override?: string | undefined;
  names?: ZoneSettingNames | undefined;
}

export interface ConferenceZone {
  /** The zone times are written in, or undefined when neither the job nor the export names one. */
  zone: string | undefined;
  /**
   * Whether the zone is the job's choice rather than the export's: then a written offset
   * that disagrees with it is re-expressed in it, not kept (schedule-clock.ts).
   */
  chosen: boolean;
  /** A job's zone that contradicts the export's, said with both zones; undefined when none does. */
  contradiction: string | undefined;
}

/**
 * Which zone a schedule's times are written in. The export's declared zone wins over
 * `timezone:`, which only fills in for an export that declares none; `override_timezone:`
 * wins over both. Silently sending every session hours off is the failure this prevents, so
 * a job zone that differs from the declared one is always said, with both names.
 */
export function conferenceZone(
  where: string,
  settings: ZoneSettings,
  declared: string | undefined,
): ConferenceZone {
  const names = settings.names ?? JOB_ZONE_SETTINGS;
  if (settings.timezone !== undefined) checkTimeZone(settings.timezone, `${where}: ${names.timezone}`);
  if (settings.override !== undefined) checkTimeZone(settings.override, `${where}: ${names.override}`);
  const exportZone = declared !== undefined && isZone(declared) ? declared : undefined;
  if (settings.override !== undefined) {
    const differs = exportZone !== undefined && !sameZone(exportZone, settings.override);
    return {
      zone: settings.override,
      chosen: true,
      contradiction: differs
        ? `${names.override} ${settings.override} overrides the zone the export declares (${exportZone}): times are written in ${settings.override}`
        : undefined,
    };
  }
  if (exportZone === undefined)
    return { zone: settings.timezone, chosen: settings.timezone !== undefined, contradiction: undefined };
  const differs = settings.timezone !== undefined && !sameZone(exportZone, settings.timezone);
  return {
    zone: exportZone,
    chosen: false,
    contradiction: differs
      ? `the export declares the time zone ${exportZone} and ${names.timezone} says ${settings.timezone}: the export's zone is used (times are written in ${exportZone}); to write them in ${settings.timezone} instead, give ${names.override} ${settings.timezone}`
      : undefined,
  };
}

/** Two names of one zone (`UTC` and `Etc/UTC`) are no contradiction. */
function sameZone(a: string, b: string): boolean {
  return canonical(a) === canonical(b);
}

function canonical(zone: string): string {
  return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
}

function isZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    checkTimeZone(zone, 'zone');
    return true;
  } catch {
    return false;
  }
}
