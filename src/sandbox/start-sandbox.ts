import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import { rootLogger, type Logger } from '../log/logger.js';
import { DEFAULT_VENDOR } from '../platform/vendor.js';
import { ADMIN_PREFIX, handleAdminRequest } from './admin-api.js';
import { handleApiRequest } from './api-pipeline.js';
import { parseFaultSpec, type FaultConfig } from './fault-config.js';
import { FaultInjector } from './fault-injector.js';
import { RateLimiter, type RateLimitConfig } from './rate-limiter.js';
import { SandboxCounters } from './sandbox-counters.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { applySeed, seedBase, type SandboxSeed } from './sandbox-seed.js';
import { SandboxState } from './sandbox-state.js';
import { loadStateFile, readSeedFile, saveStateFile } from './state-file.js';

export interface SandboxOptions {
  /** @defaultValue 0 (any free port) */
  port?: number;
  /** @defaultValue '127.0.0.1' */
  host?: string;
  /** @defaultValue '1' */
  keyId?: number | string;
  /** @defaultValue a random key, printed by the CLI (it is a sandbox key, not a real one) */
  signingKey?: string;
  /** The word in `user[svc_auth_attributes]`. @defaultValue 'svc' */
  vendor?: string;
  /** Seed data, or the path of a JSON/YAML seed file. Ignored when a state file already exists. */
  seed?: SandboxSeed | string;
  /** Load the conference from this JSON file when it exists, and save every change back to it. */
  stateFile?: string;
  /** A fault config or a `--faults` spec such as `latency=5-20,503=0.05`. @defaultValue none */
  faults?: FaultConfig | string;
  /** Requests per second per key_id. @defaultValue no limit */
  rateLimit?: RateLimitConfig;
  /** Larger bodies answer 413. @defaultValue 1 MiB */
  maxBodyBytes?: number;
  logger?: Logger;
}

export interface RunningSandbox {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  keyId: string;
  signingKey: string;
  state: SandboxState;
  counters: SandboxCounters;
  faults: FaultInjector;
  rateLimiter: RateLimiter;
  /** Back to the seeded state, counters zeroed (as `POST /_sandbox/reset`). */
  reset(): void;
  /** Stops listening, ends open connections, and saves the state file. */
  close(): Promise<void>;
}

/** Starts the Event Platform API emulator in this process. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const logger = (options.logger ?? rootLogger()).child({ component: 'sandbox' });
  const state = new SandboxState();
  const loaded = options.stateFile ? await loadStateFile(options.stateFile) : undefined;
  if (loaded) {
    state.restore(loaded);
  } else {
    seedBase(state);
    if (options.seed !== undefined) {
      applySeed(state, typeof options.seed === 'string' ? await readSeedFile(options.seed) : options.seed);
    }
  }
  const keyId = String(options.keyId ?? '1');
  const signingKey = options.signingKey ?? randomBytes(16).toString('hex');
  const faults = typeof options.faults === 'string' ? parseFaultSpec(options.faults) : (options.faults ?? {});
  const stateFile = options.stateFile;
  let saveTimer: NodeJS.Timeout | undefined;
  let saving: Promise<unknown> = Promise.resolve();
  const saveState = async (): Promise<boolean> => {
    if (!stateFile) return false;
    clearTimeout(saveTimer);
    saveTimer = undefined;
    const snapshot = state.snapshot();
    saving = saving.then(() => saveStateFile(stateFile, snapshot));
    await saving;
    return true;
  };
  const runtime: SandboxRuntime = {
    state,
    counters: new SandboxCounters(),
    faults: new FaultInjector(faults),
    rateLimiter: new RateLimiter(options.rateLimit),
    key: { keyId, signingKey },
    vendor: options.vendor ?? DEFAULT_VENDOR,
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    logger,
    // A copy: the snapshot's records are the live ones, which the API changes in place.
    initialSnapshot: structuredClone(state.snapshot()),
    saveState,
  };
  if (stateFile) {
    // Saving is debounced: a bulk import must not rewrite the file on every call.
    state.onChange = () => {
      saveTimer ??= setTimeout(() => {
        saveState().catch((error: unknown) =>
          logger.error({ err: error }, 'cannot save the sandbox state file'),
        );
      }, 250);
    };
    if (!loaded) await saveState();
  }

  const server = createServer((request, response) => route(runtime, request, response));
  server.keepAliveTimeout = 10_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE' ? 'is in use' : `cannot be used (${error.code ?? error.message})`;
      reject(
        new ConfigError(
          `The sandbox address ${host}:${options.port ?? 0} ${why}; choose another with --port/--host.`,
          {
            code: CODE.EVSYNC_SANDBOX_LISTEN,
            cause: error,
          },
        ),
      );
    });
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const bound = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${bound === '0.0.0.0' || bound === '[::]' ? '127.0.0.1' : bound}:${address.port}`;
  logger.debug({ url }, 'sandbox listening');

  return {
    url,
    keyId,
    signingKey,
    state,
    counters: runtime.counters,
    faults: runtime.faults,
    rateLimiter: runtime.rateLimiter,
    reset: () => {
      state.restore(runtime.initialSnapshot);
      runtime.counters.reset();
      state.changed();
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await saveState();
    },
  };
}

function route(runtime: SandboxRuntime, request: IncomingMessage, response: ServerResponse): void {
  const url = request.url ?? '/';
  const mark = url.indexOf('?');
  const rawPath = mark === -1 ? url : url.slice(0, mark);
  const rawQuery = mark === -1 ? '' : url.slice(mark + 1);
  const work =
    rawPath === ADMIN_PREFIX || rawPath.startsWith(`${ADMIN_PREFIX}/`)
      ? handleAdminRequest(runtime, request, response, rawPath)
      : handleApiRequest(runtime, request, response, rawPath, rawQuery);
  work.catch((error: unknown) => {
    // Only a failure to write the answer itself gets here; the server must keep serving.
    runtime.logger.error({ err: error }, 'sandbox could not answer a request');
    if (!response.headersSent) response.writeHead(500).end();
  });
}
