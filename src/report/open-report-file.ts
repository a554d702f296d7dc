import { openSync } from 'node:fs';
import { dirname } from 'node:path';
import { CODE } from '../errors/codes.js';
import { ConfigError, messageOf } from '../errors/evsync-error.js';

/**
 * Opens (creates or empties) a `--report` file before any work, so that a path that cannot
 * be written is a usage error at once rather than a crash after a whole source was read or
 * a whole run was sent. Answers the file descriptor.
 */
export function openReportFile(file: string): number {
  try {
    return openSync(file, 'w');
  } catch (error) {
    throw reportUnwritable(file, error, whyUnwritable(file, error));
  }
}

/** The error of a report that cannot be written (at open, or later: disk full). */
export function reportUnwritable(file: string, cause: unknown, why = messageOf(cause)): ConfigError {
  return new ConfigError(`Cannot write the report ${file}: ${why}`, {
    code: CODE.EVSYNC_REPORT_UNWRITABLE,
    cause,
  });
}

function whyUnwritable(file: string, error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return `the folder ${dirname(file)} does not exist: create it, or give another path`;
    case 'ENOTDIR':
      return `a part of ${dirname(file)} is a file, not a folder: give another path`;
    case 'EISDIR':
      return 'it is a directory: give a file name ending in .csv or .json';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied: choose a folder you can write to';
    case 'EROFS':
      return 'the file system is read-only: choose another folder';
    default:
      return `${messageOf(error)}: give another path`;
  }
}
