import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { decodeForm } from '../../src/platform/params.js';
import type { FlatParams } from '../../src/model/params.js';
import { md5Hex, signingStringOf, withoutSignature } from '../../src/platform/signing.js';

/** One request as the test server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: FlatParams;
  body: FlatParams;
  rawBody: string;
  headers: IncomingMessage['headers'];
  /** Which TCP connection carried it: equal numbers prove keep-alive reuse. */
  connection: number;
  signatureValid: boolean;
}

/** What a handler answers: a JSON reply, a delay, or a broken connection. */
export type Reply =
  | { status?: number; json?: unknown; text?: string; headers?: Record<string, string>; delayMs?: number }
  | { destroy: 'before-headers' | 'after-headers'; delayMs?: number }
  | { hang: true }
  /** Sends the status line and part of the body, then nothing more. */
  | { stallBody: true };

export type Handler = (request: SeenRequest, index: number) => Reply;

export interface PlatformTestServer {
  url: string;
  requests: SeenRequest[];
  /** Replaces the handler; the default answers `200 {}`. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

/**
 * A small real HTTP server on 127.0.0.1, port 0, for the client's integration tests
 * (until the sandbox exists). It checks each signature with `signingKey` the way §5 says.
 */
export async function startPlatformTestServer(signingKey = 'test-signing-key'): Promise<PlatformTestServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const connectionIds = new WeakMap<Socket, number>();
  let handler: Handler = () => ({ json: {} });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const query = decodeForm(url.search.slice(1));
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const body = rawBody === '' ? {} : decodeForm(rawBody);
      const expected = md5Hex(signingStringOf(withoutSignature(query), body, signingKey));
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query,
        body,
        rawBody,
        headers: req.headers,
        connection: connectionIds.get(req.socket) ?? -1,
        signatureValid: query.sig === expected,
      };
      requests.push(seen);
      answer(res, handler(seen, requests.length - 1));
    });
  });
  let nextConnection = 0;
  server.on('connection', (socket) => {
    connectionIds.set(socket, nextConnection++);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(res: ServerResponse, reply: Reply): void {
  if ('hang' in reply) return;
  if ('stallBody' in reply) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"id":');
    return;
  }
  const run = (): void => {
    if ('destroy' in reply) {
      if (reply.destroy === 'after-headers') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"id":');
        res.flushHeaders();
        setTimeout(() => res.socket?.destroy(), 20);
      } else {
        res.socket?.destroy();
      }
      return;
    }
    const body = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(body);
  };
  if (reply.delayMs) setTimeout(run, reply.delayMs);
  else run();
}
