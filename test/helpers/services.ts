import { connect } from 'node:net';

/** The real servers that integration tests use, as this machine and CI run them. */
export const SERVICES = {
  postgres: { host: '127.0.0.1', port: 5432, url: 'postgres://postgres@127.0.0.1:5432/test' },
  mariadb: { host: '127.0.0.1', port: 3306, url: 'mysql://root@127.0.0.1:3306/test' },
  redis: { host: '127.0.0.1', port: 6379, url: 'redis://127.0.0.1:6379' },
} as const;

export type ServiceName = keyof typeof SERVICES;

function canConnect(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Whether a test file may use the service. Without it a local run skips loudly; with
 * CI=true a missing service is a failure, never a silent skip.
 */
export async function serviceAvailable(name: ServiceName): Promise<boolean> {
  const { host, port } = SERVICES[name];
  if (await canConnect(host, port)) return true;
  const message = `${name} is not reachable at ${host}:${port}`;
  if (process.env.CI === 'true') throw new Error(`${message}; CI requires it (see .ci/run)`);
  console.warn(`\n*** SKIPPING ${name} tests: ${message}. Start it to run them. ***\n`);
  return false;
}
