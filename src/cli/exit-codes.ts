import { isAbsolute, relative, resolve, sep } from 'node:path';
import { CODE, type ErrorCode } from '../errors/codes.js';
import { ConfigError, EvsyncError } from '../errors/evsync-error.js';
import { fileProblem } from '../errors/file-problem.js';

/** The process exit codes, in one place (docs/design.md, "Exit codes"). */
export const EXIT = {
  ok: 0,
  someRowsFailed: 1,
  usage: 2,
  aborted: 3,
} as const;

/** Error codes that mean the run could not go on, as opposed to bad configuration. */
const ABORT_CODES = new Set<ErrorCode>([
  CODE.EVSYNC_ABORTED,
  CODE.EVSYNC_PLATFORM_UNREACHABLE,
  CODE.EVSYNC_DELETE_THRESHOLD,
  CODE.EVSYNC_TOO_FEW_ROWS,
  // `evsync audit` could not read the platform (docs/audit.md, "Exit codes").
  CODE.EVSYNC_AUDIT_READ_FAILED,
]);

/**
 * A plain Node file error (ENOENT, EISDIR, EACCES, ENOTDIR…) on a path the user gave on the
 * command line, as the usage error it is (code `EVSYNC_FILE`, exit 2) with a message naming
 * the path; undefined for anything else. The same code on a path of evsync's own is an
 * internal failure and stays one.
 */
export function userFileError(error: unknown, givenPaths: readonly string[]): ConfigError | undefined {
  if (error instanceof EvsyncError || !(error instanceof Error)) return undefined;
  const { path } = error as NodeJS.ErrnoException;
  const problem = path === undefined ? undefined : fileProblem(error, path);
  if (problem === undefined || path === undefined || !givenPaths.some((given) => isWithin(path, given))) {
    return undefined;
  }
  return new ConfigError(problem, { code: CODE.EVSYNC_FILE, cause: error });
}

/** True when `path` is `given`, or inside it. */
function isWithin(path: string, given: string): boolean {
  if (given === '') return false;
  const inside = relative(resolve(given), resolve(path));
  return inside === '' || (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside));
}

/**
 * The exit code for an error that ended a command: 3 when the run could not go on (and for
 * anything unexpected), 2 for usage, configuration and file errors, including a plain Node
 * file error on one of `givenPaths`, the paths the user typed.
 */
export function exitCodeFor(error: unknown, givenPaths: readonly string[] = []): number {
  if (error instanceof EvsyncError && ABORT_CODES.has(error.code)) return EXIT.aborted;
  if (error instanceof EvsyncError) return EXIT.usage;
  if (userFileError(error, givenPaths)) return EXIT.usage;
  return EXIT.aborted;
}
