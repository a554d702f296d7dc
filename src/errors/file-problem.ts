/**
 * What went wrong with a file or folder, and what to do, by Node's error code: the
 * problems a person causes by the path they typed, in words rather than `ENOENT`.
 */
const FILE_PROBLEMS: Record<string, (path: string) => string> = {
  ENOENT: (path) => `${path} does not exist: check the path (and that its folder exists)`,
  ENOTDIR: (path) => `${path}: a part of this path is a file, not a folder: check the path`,
  EISDIR: (path) => `${path} is a directory, not a file: give a file's path`,
  EACCES: (path) => `${path}: permission denied: check its permissions, or choose another path`,
  EPERM: (path) => `${path}: operation not permitted: check its permissions, or choose another path`,
  EROFS: (path) => `${path} is on a read-only file system: choose another path`,
  ENAMETOOLONG: (path) => `${path}: the name is too long: choose a shorter path`,
  ELOOP: (path) => `${path}: too many symbolic links: check where the path points`,
};

/** The plain words for a Node file error on `path`, or undefined when it is no such error. */
export function fileProblem(error: unknown, path: string): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === undefined ? undefined : FILE_PROBLEMS[code]?.(path);
}
