import { platformConfigFor, platformVariables, type PlatformRef } from '../config/conference.js';
import type { PlatformConfig } from '../config/env-config.js';
import { ConfigError } from '../errors/evsync-error.js';
import { conferenceHost, runConferenceHost } from '../model/conference.js';
import type { RunRecord } from '../model/run-record.js';

/**
 * The platform settings this environment holds for a run's conference, or why it holds
 * none: the job's variables (`platform:`, else `EVSYNC_*`) are not all set, or they point
 * at another URL than the run's conference. A worker never signs for another conference than
 * the run's (docs/distributed.md, "Several conferences"); the reason names variables, never
 * their values.
 */
export function conferenceConfigIn(
  ref: PlatformRef | undefined,
  conferenceBaseUrl: string | null,
  env: NodeJS.ProcessEnv,
): { config: PlatformConfig } | { refused: string } {
  let config: PlatformConfig;
  try {
    config = platformConfigFor(ref, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const names = Object.values(platformVariables(ref)).join(', ');
    return { refused: `its variables (${names}) are not all set in this worker's environment` };
  }
  if (conferenceBaseUrl !== null && config.baseUrl !== conferenceBaseUrl) {
    return {
      refused: `${platformVariables(ref).base_url_env} here points at ${conferenceHost(config.baseUrl)}, not at the run's conference`,
    };
  }
  return { config };
}

/** A run's conference as messages name it: its host, or the default conference's. */
export function runHost(run: Pick<RunRecord, 'conference'>): string {
  return runConferenceHost(run) ?? '(the default conference)';
}
