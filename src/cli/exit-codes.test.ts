import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, EvsyncError } from '../errors/evsync-error.js';
import { EXIT, exitCodeFor, userFileError } from './exit-codes.js';

function fsError(code: string, path: string, syscall = 'open'): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: something, ${syscall} '${path}'`), { code, path, syscall });
}

describe('exitCodeFor', () => {
  it('answers 3 for an aborted run and 2 for configuration errors', () => {
    expect(exitCodeFor(new EvsyncError('down', { code: 'EVSYNC_PLATFORM_UNREACHABLE' }))).toBe(EXIT.aborted);
    expect(exitCodeFor(new ConfigError('bad job'))).toBe(EXIT.usage);
  });

  it.each(['ENOENT', 'EISDIR', 'EACCES', 'ENOTDIR', 'EPERM', 'EROFS'])(
    'answers 2 for %s on a path the user gave',
    (code) => {
      expect(exitCodeFor(fsError(code, '/tmp/out/r.csv'), ['validate', '/tmp/out/r.csv'])).toBe(EXIT.usage);
    },
  );

  it('answers 2 for a file error inside a folder the user gave, also through a relative path', () => {
    expect(exitCodeFor(fsError('EACCES', `${process.cwd()}/state/s.json`), ['--state', 'state'])).toBe(
      EXIT.usage,
    );
  });

  it("answers 3 for the same error on a path of evsync's own, and for any other crash", () => {
    expect(exitCodeFor(fsError('ENOENT', '/opt/evsync/mappings/users.yaml'), ['/tmp/people.csv'])).toBe(
      EXIT.aborted,
    );
    expect(exitCodeFor(fsError('ENOENT', '/tmp/people.csv.bak'), ['/tmp/people.csv'])).toBe(EXIT.aborted);
    expect(exitCodeFor(fsError('ENOENT', '/srv/other'), ['/tmp/people.csv'])).toBe(EXIT.aborted);
    expect(exitCodeFor(new TypeError('x is undefined'), ['/tmp/people.csv'])).toBe(EXIT.aborted);
    expect(exitCodeFor(Object.assign(new Error('EISDIR: read'), { code: 'EISDIR' }), ['/tmp'])).toBe(
      EXIT.aborted,
    );
  });
});

describe('exitCodeFor with a relative path', () => {
  // `..` is resolved against the working directory: pinned here, so that the answer does not
  // depend on where the clone lives (directly in the temp folder, `..` holds every temp path).
  afterEach(() => vi.restoreAllMocks());

  it('answers 3 for an error outside the folder `..` names, and 2 inside it', () => {
    vi.spyOn(process, 'cwd').mockReturnValue('/srv/work/clone');
    expect(exitCodeFor(fsError('ENOENT', '/tmp/other'), ['/tmp/people.csv', '..'])).toBe(EXIT.aborted);
    expect(exitCodeFor(fsError('ENOENT', '/srv/work/other'), ['/tmp/people.csv', '..'])).toBe(EXIT.usage);
  });

  it('answers the same with the working directory directly in the temp folder', () => {
    vi.spyOn(process, 'cwd').mockReturnValue(join(tmpdir(), 'clone'));
    expect(exitCodeFor(fsError('ENOENT', '/srv/other'), ['/tmp/people.csv', '..'])).toBe(EXIT.aborted);
    expect(exitCodeFor(fsError('ENOENT', join(tmpdir(), 'other')), ['..'])).toBe(EXIT.usage);
  });
});

describe('userFileError', () => {
  it('names the path, what is wrong and what to do', () => {
    const cases: [string, RegExp][] = [
      ['ENOENT', /^\/x\/r\.csv does not exist: check the path/],
      ['EISDIR', /^\/x\/r\.csv is a directory, not a file: give a file's path/],
      ['EACCES', /^\/x\/r\.csv: permission denied: check its permissions, or choose another path/],
      ['ENOTDIR', /^\/x\/r\.csv: a part of this path is a file, not a folder/],
    ];
    for (const [code, message] of cases) {
      const error = userFileError(fsError(code, '/x/r.csv'), ['/x/r.csv']);
      expect(error).toBeInstanceOf(ConfigError);
      expect(error?.code).toBe('EVSYNC_FILE');
      expect(error?.message).toMatch(message);
      expect(error?.retryable).toBe(false);
    }
  });

  it('leaves evsync errors and errors on other paths alone', () => {
    expect(userFileError(new ConfigError('bad'), ['/x'])).toBeUndefined();
    expect(userFileError(fsError('ENOENT', '/y'), ['/x'])).toBeUndefined();
    expect(userFileError(fsError('ECONNREFUSED', '/x'), ['/x'])).toBeUndefined();
  });
});
