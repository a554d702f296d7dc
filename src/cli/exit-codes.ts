import { EvsyncError } from '../errors/evsync-error.js';

/** The process exit codes, in one place (issue 5: 0 ok, 1 rows failed, 2 usage/config, 3 aborted). */
export const EXIT = {
  ok: 0,
  someRowsFailed: 1,
  usage: 2,
  aborted: 3,
} as const;

/** Error codes that mean the run could not go on, as opposed to bad configuration. */
const ABORT_CODES = new Set(['EVSYNC_ABORTED', 'EVSYNC_PLATFORM_UNREACHABLE', 'EVSYNC_DELETE_THRESHOLD']);

export function exitCodeFor(error: unknown): number {
  if (error instanceof EvsyncError && ABORT_CODES.has(error.code)) return EXIT.aborted;
  if (error instanceof EvsyncError) return EXIT.usage;
  return EXIT.aborted;
}
