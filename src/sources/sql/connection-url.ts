import { ConfigError } from '../../errors/evsync-error.js';

/**
 * The connection URL from the env var the job file names. The URL itself never goes into a
 * message: only the variable's name does.
 */
export function connectionUrlFrom(env: NodeJS.ProcessEnv, name: string, kind: 'postgres' | 'mysql'): string {
  const url = env[name];
  if (url === undefined || url.trim() === '') {
    const example =
      kind === 'postgres' ? 'postgres://user:password@host:5432/db' : 'mysql://user:password@host:3306/db';
    throw new ConfigError(
      `the ${kind} source reads its connection URL from the environment variable ${name}, which is not set: ` +
        `export ${name}=${example} (or put it in .env)`,
      { code: 'SOURCE_URL_ENV_UNSET' },
    );
  }
  return url;
}
