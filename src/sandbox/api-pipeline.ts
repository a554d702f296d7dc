import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { FormDecodeError, decodeForm } from '../platform/params.js';
import type { FlatParams } from '../model/params.js';
import { signatureTest } from './handlers/signature-test-handler.js';
import { hasBody, readBody } from './read-body.js';
import { matchRoute, type Route } from './route-table.js';
import { SandboxHttpError } from './sandbox-http-error.js';
import type { HandlerContext, ResponseFormat, SandboxRequest } from './sandbox-request.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { errorReply, internalErrorReply, sendReply } from './send-reply.js';
import { checkSignature } from './verify-signature.js';
import { assertValidWrite } from './write-validation.js';

const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * One signed API call, in the order a real service would judge it: path and method,
 * body size and encoding, signature, rate limit; then the injected faults, the handler,
 * and (for writes) the commit-then-fail faults. The counters see every call.
 */
export async function handleApiRequest(
  runtime: SandboxRuntime,
  request: IncomingMessage,
  response: ServerResponse,
  rawPath: string,
  rawQuery: string,
): Promise<void> {
  const started = performance.now();
  const method = request.method ?? 'GET';
  let endpoint = `${method} (unknown path)`;
  let status: number | 'reset' = 500;
  try {
    const suffix = /\.(json|xml|atom)$/.exec(rawPath);
    const path = suffix ? rawPath.slice(0, suffix.index) : rawPath;
    const match = matchRoute(method, path);
    if (match.kind === 'not-found') throw new SandboxHttpError(404, `No such path: ${method} ${path}`);
    if (match.kind === 'wrong-method') {
      endpoint = `${method} ${path}`;
      throw new SandboxHttpError(
        405,
        `${method} is not allowed on ${path}; use ${match.allowed.join(', ')}.`,
        {
          headers: { allow: match.allowed.join(', ') },
        },
      );
    }
    const route = match.route;
    endpoint = `${method} ${route.pattern}`;
    const bodyText = hasBody(request) ? await readBody(request, runtime.maxBodyBytes) : '';
    const contentType = (request.headers['content-type'] ?? FORM_TYPE).split(';')[0]?.trim().toLowerCase();
    if (bodyText !== '' && contentType !== FORM_TYPE) {
      throw new SandboxHttpError(415, `Send the body as ${FORM_TYPE}, not ${contentType ?? 'nothing'}.`);
    }
    const query = decode(rawQuery, 'query string');
    const body = decode(bodyText, 'body');
    const signature = checkSignature(query, body, runtime.key);
    if (!signature.valid && route.handler !== signatureTest) {
      throw new SandboxHttpError(401, `Invalid signature: ${signature.problem ?? ''}`);
    }
    const decision = runtime.rateLimiter.take(query.key_id ?? '');
    if (!decision.allowed) {
      throw new SandboxHttpError(429, `Rate limit exceeded for key_id ${query.key_id ?? ''}.`, {
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      });
    }
    const { faults } = runtime;
    if (faults.active) {
      const latency = faults.latencyMs();
      if (latency > 0) await sleep(latency);
      if (faults.fires('reset')) {
        status = 'reset';
        request.socket.destroy();
        return;
      }
      if (faults.fires('error503')) throw new SandboxHttpError(503, 'Service unavailable (injected fault).');
      if (faults.fires('error500'))
        throw new SandboxHttpError(500, 'Internal server error (injected fault).');
    }
    const sandboxRequest: SandboxRequest = {
      method,
      path,
      pathId: match.pathId,
      params: handlerParams(query, body),
      format: formatOf(route, query.format ?? suffix?.[1]),
      baseUrl: `http://${request.headers.host ?? 'localhost'}`,
      signature,
    };
    const reply = route.handler(sandboxRequest, contextOf(runtime));
    if (method !== 'GET' && reply.status < 400 && faults.active && route.handler !== signatureTest) {
      if (faults.fires('commitDrop')) {
        status = 'reset';
        request.socket.destroy();
        return;
      }
      if (faults.fires('commit500'))
        throw new SandboxHttpError(500, 'Internal server error (injected fault).');
    }
    status = reply.status;
    sendReply(response, reply);
  } catch (error) {
    if (error instanceof SandboxHttpError) {
      status = error.status;
      sendReply(response, errorReply(error), error.headers);
    } else {
      status = 500;
      runtime.logger.error({ err: error, endpoint }, 'sandbox handler failed');
      sendReply(response, internalErrorReply());
    }
  } finally {
    runtime.counters.recordCall(endpoint, status);
    // Method, endpoint and status only: params may hold a password, the query holds `sig`.
    if (runtime.logger.isLevelEnabled('debug')) {
      runtime.logger.debug({ endpoint, status, ms: Math.round(performance.now() - started) }, 'sandbox call');
    }
  }
}

function decode(text: string, where: string): FlatParams {
  try {
    return decodeForm(text);
  } catch (error) {
    if (error instanceof FormDecodeError)
      throw new SandboxHttpError(400, `Malformed ${where}: ${error.message}.`);
    throw error;
  }
}

const TRANSPORT_PARAMS = new Set(['key_id', 'sig', 'format']);

/** Query and body together, body winning; the auth and format params are not data. */
function handlerParams(query: FlatParams, body: FlatParams): FlatParams {
  // Built by copying rather than `delete`, which would turn the object into a slow dictionary.
  const params: FlatParams = {};
  for (const source of [query, body]) {
    for (const key of Object.keys(source)) {
      if (TRANSPORT_PARAMS.has(key)) continue;
      // `__proto__` is a param name like any other here: keep it as an own property.
      if (key === '__proto__')
        Object.defineProperty(params, key, { value: source[key], enumerable: true, writable: true });
      else params[key] = source[key] ?? '';
    }
  }
  return params;
}

/** JSON everywhere; XML for users and check-ins; Atom for users (docs/design.md, "our conventions"). */
function formatOf(route: Route, requested: string | undefined): ResponseFormat {
  if (requested === undefined || requested === '' || requested === 'json') return 'json';
  const usersRoute = route.pattern.startsWith('/user') || route.pattern.startsWith('/speaker');
  const checkInRoute = route.pattern.startsWith('/check_in');
  if (requested === 'xml' && (usersRoute || checkInRoute)) return 'xml';
  if (requested === 'atom' && route.pattern.startsWith('/user')) return 'atom';
  throw new SandboxHttpError(406, `format=${requested} is not served for ${route.pattern}.`);
}

const contexts = new WeakMap<SandboxRuntime, HandlerContext>();

function contextOf(runtime: SandboxRuntime): HandlerContext {
  let context = contexts.get(runtime);
  if (!context) {
    context = {
      state: runtime.state,
      vendor: runtime.vendor,
      validate: (operation, request) =>
        assertValidWrite(operation, request.params, runtime.vendor, request.pathId),
      countCreate: (kind, clientId) => runtime.counters.recordCreate(kind, clientId),
    };
    contexts.set(runtime, context);
  }
  return context;
}
