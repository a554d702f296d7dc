import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../../src/sources/open-source.js';
import { sourceConfigSchema } from '../../../src/sources/source-config.js';
import type { SourceItem } from '../../../src/sources/source-row.js';

const ALL = readFileSync('/work/shared/fixtures/sessionize/All.json');
let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? '');
    if (request.url === '/api/v2/abc/view/All') {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), ALL])); // as the real API sends it
    } else if (request.url === '/moved') {
      response.writeHead(302, { location: '/api/v2/abc/view/All' }).end();
    } else if (request.url === '/down') {
      response.writeHead(503).end('maintenance');
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function readAll(url: string): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  const source = openSource(sourceConfigSchema.parse({ sessionize: { url } }), { baseDir: '.' });
  for await (const item of source.rows()) items.push(item);
  return items;
}

describe('sessionize from a URL', () => {
  it('downloads the All export, BOM and all, following a redirect', async () => {
    const items = await readAll(`${base}/moved`);
    expect(items.filter((item) => item.ok && item.values.record_type === 'session')).toHaveLength(11);
    expect(items[0]!.origin.source).toBe(`${base}/moved`);
    expect(hits).toContain('/api/v2/abc/view/All');
  });

  it('names the HTTP status, retryable on 5xx, permanent on 404', async () => {
    await expect(readAll(`${base}/down`)).rejects.toMatchObject({
      code: 'SCHEDULE_HTTP_STATUS',
      retryable: true,
    });
    await expect(readAll(`${base}/nothing`)).rejects.toMatchObject({
      code: 'SCHEDULE_HTTP_STATUS',
      retryable: false,
      message: expect.stringContaining('HTTP 404'),
    });
  });

  it('reports a refused connection as a retryable download failure', async () => {
    await expect(readAll('http://127.0.0.1:1/All')).rejects.toMatchObject({
      code: 'SCHEDULE_DOWNLOAD_FAILED',
      retryable: true,
    });
  });
});
