/**
 * What this machine allows at a given latency and concurrency, whatever the client: a
 * server that does nothing but wait `latencyMs` before a one-line answer, in its own
 * process, and a bare undici loop with `concurrency` requests in flight. Its rate is the
 * ceiling any Node client reaches here; the 20 ms benches print theirs against it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';

const SERVER = `
import { createServer } from 'node:http';
const latency = Number(process.argv[1]);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => setTimeout(() => res.end('{"ok":true}'), latency));
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

export interface Ceiling {
  perSecond: number;
  p50Ms: number;
}

export async function measureLatencyCeiling(
  latencyMs: number,
  concurrency: number,
  requests: number,
): Promise<Ceiling> {
  const server = spawn(process.execPath, ['--input-type=module', '-e', SERVER, String(latencyMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];
    const url = `http://127.0.0.1:${line.trim()}/`;
    const agent = new Agent({ connections: concurrency });
    const took: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < requests) {
          next += 1;
          const sent = performance.now();
          const answer = await request(url, { method: 'POST', body: 'a=1', dispatcher: agent });
          await answer.body.text();
          took.push(performance.now() - sent);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await agent.close();
    took.sort((a, b) => a - b);
    return { perSecond: requests / seconds, p50Ms: took[took.length >> 1] ?? 0 };
  } finally {
    server.kill();
  }
}
