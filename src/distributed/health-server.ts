import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.js';
import { METRICS_CONTENT_TYPE, type Readiness } from '../sync/runs/run-metrics.js';

export interface HealthServerOptions {
  port: number;
  /** @defaultValue 127.0.0.1 */
  host?: string;
  ready: () => Promise<Readiness>;
  metrics: () => Promise<string>;
  logger: Logger;
}

/**
 * `evsync worker --metrics-port N` (docs/metrics.md): `/metrics` for Prometheus, `/healthz`
 * (the process answers) and `/readyz` (Redis and the ledger answer). Read-only, no login: it
 * says counts and states, never keys, params or secrets; bind it where only the scraper reaches.
 */
export async function startHealthServer(
  options: HealthServerOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const answer = async (): Promise<void> => {
      if (path === '/healthz') {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}\n');
      } else if (path === '/readyz') {
        const verdict = await options.ready();
        response
          .writeHead(verdict.ready ? 200 : 503, { 'content-type': 'application/json' })
          .end(`${JSON.stringify(verdict)}\n`);
      } else if (path === '/metrics') {
        const text = await options.metrics();
        response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(text);
      } else {
        response
          .writeHead(404, { 'content-type': 'text/plain' })
          .end('Not found: /metrics, /healthz or /readyz\n');
      }
    };
    answer().catch((error: unknown) => {
      options.logger.warn(
        { path, error: error instanceof Error ? error.message : String(error) },
        'health request failed',
      );
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('failed: see the worker log\n');
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  options.logger.info({ url }, 'metrics and health listening');
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
