import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';

/**
 * The connection URL from the env var the job file names. The URL itself never goes into a
 * message: only the variable's name does.
 */
export function connectionUrlFrom(env: NodeJS.ProcessEnv, name: string, kind: 'postgres' | 'mysql'): string {
  const url = env[name];
  const example =
    kind === 'postgres' ? 'postgres://user:password@host:5432/db' : 'mysql://user:password@host:3306/db';
  if (url !== undefined && url.trim() !== '' && !isUrlOf(url, kind)) {
    // Not the drivers' own errors: pg's carries the whole URL, password included.
    throw new ConfigError(
      `the environment variable ${name} does not hold a ${kind} connection URL (its value is not shown: it may hold a password). ` +
        `Set it like ${example}; a password with @, : or / in it must be percent-encoded`,
      { code: CODE.SOURCE_URL_INVALID },
    );
  }
  if (url === undefined || url.trim() === '') {
    throw new ConfigError(
      `the ${kind} source reads its connection URL from the environment variable ${name}, which is not set: ` +
        `export ${name}=${example} (or put it in .env)`,
      { code: CODE.SOURCE_URL_ENV_UNSET },
    );
  }
  return url;
}

const SCHEMES = { postgres: ['postgres:', 'postgresql:'], mysql: ['mysql:', 'mariadb:'] } as const;

function isUrlOf(text: string, kind: 'postgres' | 'mysql'): boolean {
  if (!URL.canParse(text)) return false;
  // No host is fine: `postgres:///db` and `?host=/var/run/postgresql` mean a local socket.
  // The `//` is not optional: without it the driver reads the rest as a database name.
  const { protocol } = new URL(text);
  return (
    (SCHEMES[kind] as readonly string[]).includes(protocol) &&
    text.trimStart().toLowerCase().startsWith(`${protocol}//`)
  );
}
