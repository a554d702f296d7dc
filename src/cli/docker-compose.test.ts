import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildProgram } from './main.js';
import { platformEnvSchema } from '../config/env-config.js';
import { distributedConfigFromEnv } from '../distributed/distributed-config.js';

// No Docker engine runs here (nor `docker compose`), so the compose file is checked for what
// can be checked: its services, and that every evsync command, flag, variable and file it
// names is real. The image build itself is not tested here.
interface ComposeService {
  image?: string;
  build?: string;
  volumes?: string[];
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};
const program = await buildProgram();

const EVSYNC_SERVICES = ['sandbox', 'evsync', 'worker', 'scheduler', 'dashboard'];

/** The evsync arguments of a service of the evsync image, whose entrypoint is `evsync`. */
function evsyncArgs(service: ComposeService): string[] {
  return service.image === 'evsync:local' ? [...(service.command ?? [])] : [];
}

describe('docker-compose.yml', () => {
  it('has the ledger database, Redis, the sandbox, workers, the scheduler, the dashboard and a run, all on pinned images', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'dashboard',
      'evsync',
      'postgres',
      'redis',
      'sandbox',
      'scheduler',
      'worker',
    ]);
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.image, name).toMatch(/^[\w./-]+:[\w.-]+$/);
    }
  });

  it('runs every evsync process from the image the Dockerfile builds, with only the jobs mounted', () => {
    for (const name of EVSYNC_SERVICES) {
      const service = compose.services[name]!;
      expect(service, name).toMatchObject({ image: 'evsync:local', build: '.' });
      expect(service.volumes, name).toEqual(['./jobs:/work/jobs:ro']);
    }
  });

  it('names only evsync commands and options that exist', () => {
    for (const name of EVSYNC_SERVICES) {
      const [commandName, ...rest] = evsyncArgs(compose.services[name]!);
      const command = program.commands.find((c) => c.name() === commandName);
      expect(command, `${name}: evsync ${commandName}`).toBeDefined();
      const flags = rest.filter((arg) => arg.startsWith('--'));
      for (const flag of flags)
        expect(
          command!.options.map((o) => o.long),
          `${name}: ${flag}`,
        ).toContain(flag);
      // The image's working folder is /work, where ./jobs is mounted.
      for (const file of rest.filter((arg) => arg.endsWith('.yaml')))
        expect(existsSync(file), file).toBe(true);
    }
  });

  it('configures the run with the variables evsync reads, against the sandbox', () => {
    const env = compose.services.evsync!.environment!;
    const parsed = platformEnvSchema.safeParse(env);
    expect(parsed.success).toBe(true);
    expect(env.EVSYNC_BASE_URL).toBe('http://sandbox:8080');
    expect(env.DATABASE_URL).toMatch(/^postgres:\/\/.+@postgres:5432\//);
    const sandboxArgs = evsyncArgs(compose.services.sandbox!);
    expect(sandboxArgs[sandboxArgs.indexOf('--signing-key') + 1]).toBe(env.EVSYNC_SIGNING_KEY);
    expect(sandboxArgs[sandboxArgs.indexOf('--key-id') + 1]).toBe(env.EVSYNC_KEY_ID);
    expect(compose.services.evsync!.depends_on).toMatchObject({
      sandbox: { condition: 'service_healthy' },
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      worker: { condition: 'service_started' },
    });
  });

  it('runs distributed mode: every evsync process shares the ledger and the queue', () => {
    for (const name of ['evsync', 'worker', 'scheduler', 'dashboard']) {
      const env = compose.services[name]!.environment!;
      expect(distributedConfigFromEnv(env), name).toMatchObject({ redisUrl: 'redis://redis:6379' });
      expect(env.DATABASE_URL, name).toBe(compose.services.evsync!.environment!.DATABASE_URL);
    }
    const redis = compose.services.redis!.command!;
    expect(redis).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--appendfsync', 'everysec']));
    expect(redis[redis.indexOf('--maxmemory-policy') + 1]).toBe('noeviction');
  });

  it('checks the worker and the dashboard by /readyz, and the sandbox, on the port each serves', () => {
    for (const [name, flag, path] of [
      ['worker', '--metrics-port', '/readyz'],
      ['dashboard', '--port', '/readyz'],
      ['sandbox', '--port', '/_sandbox/health'],
    ] as const) {
      const args = evsyncArgs(compose.services[name]!);
      const port = args[args.indexOf(flag) + 1];
      expect(port, name).toMatch(/^\d+$/);
      expect(compose.services[name]!.healthcheck?.test?.join(' '), name).toContain(
        `http://127.0.0.1:${port}${path}`,
      );
    }
  });
});
