import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { describeFaults, faultConfigSchema, parseFaultSpec } from './fault-config.js';
import { readBody } from './read-body.js';
import { SandboxHttpError } from './sandbox-http-error.js';
import { jsonReply, type Reply } from './sandbox-request.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { applySeed } from './sandbox-seed.js';
import { errorReply, sendReply } from './send-reply.js';
import { isEvsyncError } from '../errors/evsync-error.js';

export const ADMIN_PREFIX = '/_sandbox';

const faultsBodySchema = z.union([z.strictObject({ spec: z.string() }), faultConfigSchema]);
const rateLimitBodySchema = z.strictObject({
  perSecond: z.number().min(0),
  burst: z.number().int().min(1).optional(),
});

type AdminHandler = (runtime: SandboxRuntime, body: unknown) => Reply | Promise<Reply>;

/**
 * The test bench's own endpoints: never signed, answered only to loopback callers.
 * Bodies are JSON.
 */
const ADMIN_ROUTES: Record<string, AdminHandler> = {
  'GET ': () =>
    jsonReply(200, {
      endpoints: Object.keys(ADMIN_ROUTES).map((key) => key.replace(' ', ` ${ADMIN_PREFIX}/`)),
    }),
  'GET health': () =>
    jsonReply(200, {
      pid: process.pid,
      uptimeSeconds: Math.round(process.uptime()),
      rssBytes: process.memoryUsage.rss(),
      // Peak resident set size of the process (Linux reports kilobytes).
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      // CPU time used so far, so a benchmark can tell the sandbox's cost per request apart
      // from the load generator's on a shared machine.
      cpuMicros: process.cpuUsage().user + process.cpuUsage().system,
    }),
  'GET counters': ({ counters }) =>
    jsonReply(200, { ...counters.snapshot(), duplicates: counters.duplicates() }),
  'DELETE counters': ({ counters }) => {
    counters.reset();
    return jsonReply(200, { reset: true });
  },
  'GET state': ({ state }) => jsonReply(200, state.snapshot()),
  'POST reset': (runtime) => {
    runtime.state.restore(runtime.initialSnapshot);
    runtime.counters.reset();
    runtime.state.changed();
    return jsonReply(200, { reset: true });
  },
  'POST seed': (runtime, body) => jsonReply(200, { added: applySeed(runtime.state, body) }),
  'POST save': async (runtime) => jsonReply(200, { saved: await runtime.saveState() }),
  'GET faults': ({ faults }) =>
    jsonReply(200, { spec: describeFaults(faults.current()), config: faults.current() }),
  'PUT faults': ({ faults }, body) => {
    const parsed = faultsBodySchema.parse(body);
    faults.set('spec' in parsed ? parseFaultSpec(parsed.spec) : parsed);
    return jsonReply(200, { spec: describeFaults(faults.current()), config: faults.current() });
  },
  'DELETE faults': ({ faults }) => {
    faults.set({});
    return jsonReply(200, { spec: 'none', config: {} });
  },
  'GET rate-limit': ({ rateLimiter }) => jsonReply(200, { config: rateLimiter.current() ?? null }),
  'PUT rate-limit': ({ rateLimiter }, body) => {
    const parsed = body === null ? undefined : rateLimitBodySchema.parse(body);
    rateLimiter.set(parsed);
    return jsonReply(200, { config: rateLimiter.current() ?? null });
  },
};

export async function handleAdminRequest(
  runtime: SandboxRuntime,
  request: IncomingMessage,
  response: ServerResponse,
  rawPath: string,
): Promise<void> {
  try {
    if (!isLoopback(request.socket.remoteAddress)) {
      throw new SandboxHttpError(403, `${ADMIN_PREFIX}/ answers loopback callers only.`);
    }
    const name = rawPath.slice(ADMIN_PREFIX.length).replace(/^\/+|\/+$/g, '');
    const method = request.method ?? 'GET';
    const handler = ADMIN_ROUTES[`${method} ${name}`];
    if (!handler) {
      const known = Object.keys(ADMIN_ROUTES).filter((key) => key.endsWith(` ${name}`));
      if (known.length > 0) {
        throw new SandboxHttpError(405, `${method} is not allowed on ${rawPath}.`, {
          headers: { allow: known.map((key) => key.split(' ')[0]).join(', ') },
        });
      }
      throw new SandboxHttpError(
        404,
        `No such sandbox admin path: ${rawPath} (GET ${ADMIN_PREFIX}/ lists them).`,
      );
    }
    const text = await readBody(request, runtime.maxBodyBytes);
    sendReply(response, await handler(runtime, parseJsonBody(text)));
  } catch (error) {
    sendReply(response, errorReply(asHttpError(error)));
  }
}

function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SandboxHttpError(400, 'The admin body must be JSON.');
  }
}

function asHttpError(error: unknown): SandboxHttpError {
  if (error instanceof SandboxHttpError) return error;
  if (error instanceof z.ZodError) return new SandboxHttpError(400, z.prettifyError(error));
  if (isEvsyncError(error)) return new SandboxHttpError(400, error.message);
  return new SandboxHttpError(500, error instanceof Error ? error.message : String(error));
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
