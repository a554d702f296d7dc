import { connect } from 'node:net';

/**
 * A service's port: its usual one, or `EVSYNC_TEST_<NAME>_PORT` (how a test proves that a
 * machine without the service skips its tests loudly, by pointing at a closed port).
 */
function portOf(name: string, usual: number): number {
  const asked = Number(process.env[`EVSYNC_TEST_${name}_PORT`]);
  return Number.isInteger(asked) && asked > 0 ? asked : usual;
}

const PORTS = {
  postgres: portOf('POSTGRES', 5432),
  mariadb: portOf('MARIADB', 3306),
  redis: portOf('REDIS', 6379),
};

/** The real servers that integration tests use, as this machine and CI run them. */
export const SERVICES = {
  postgres: {
    host: '127.0.0.1',
    port: PORTS.postgres,
    url: `postgres://postgres@127.0.0.1:${PORTS.postgres}/test`,
  },
  mariadb: { host: '127.0.0.1', port: PORTS.mariadb, url: `mysql://root@127.0.0.1:${PORTS.mariadb}/test` },
  redis: { host: '127.0.0.1', port: PORTS.redis, url: `redis://127.0.0.1:${PORTS.redis}` },
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

/**
 * A schema of its own in the test PostgreSQL, for a ledger that a spawned evsync opens by
 * `DATABASE_URL`; `drop` removes it with everything in it.
 */
export async function postgresSchema(
  prefix: string,
): Promise<{ schema: string; env: NodeJS.ProcessEnv; drop: () => Promise<void> }> {
  const { default: pg } = await import('pg');
  const { randomBytes } = await import('node:crypto');
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVICES.postgres.url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  return {
    schema,
    env: { DATABASE_URL: `${SERVICES.postgres.url}?options=-c%20search_path%3D${schema}` },
    drop: async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}
