/**
 * What this machine allows at a given latency and concurrency, whatever the client: a
 * server that does nothing but wait `latencyMs` before answering, in its own process, and
 * a bare undici loop with `concurrency` requests in flight. Its rate is the ceiling any
 * Node client reaches here; the 20 ms benches print theirs against it.
 *
 * Measured twice: with one-line calls, and with calls the size of evsync's (a signed user
 * create, built by the real request builder, answered by a body the size of the sandbox's
 * user JSON), since reading and writing those bytes is part of every round trip too.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { buildHttpRequest, type HttpRequest } from '../../src/platform/request-builder.js';

const SERVER = `
import { createServer } from 'node:http';
const latency = Number(process.argv[1]);
const answer = 'x'.repeat(Number(process.argv[2]));
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': answer.length });
    res.end(answer);
  }, latency));
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

export interface Ceiling {
  perSecond: number;
  p50Ms: number;
}

export interface CallSize {
  /** Builds the i-th request; the default is a one-line POST. */
  request: (i: number) => HttpRequest;
  /** Bytes of each answer. */
  answerBytes: number;
}

const ONE_LINE: CallSize = {
  request: () => ({ method: 'POST', target: '/', headers: {}, body: 'a=1' }),
  answerBytes: 11,
};

/** A signed user create as evsync sends it, and an answer the size of the sandbox's user JSON. */
export function evsyncSizedCalls(answerBytes = 300): CallSize {
  const credentials = { keyId: 1, signingKey: 'ceiling-key' };
  return {
    request: (i) =>
      buildHttpRequest(
        {
          method: 'POST',
          path: '/user',
          body: {
            'user[client_id]': `b${i}`,
            'user[svc_auth_attributes][email]': `b${i}@bench.example.org`,
            'user[first_name]': `First${i}`,
            'user[last_name]': `Last${i}`,
            'user[company]': `Company ${i % 50}`,
            'user[position]': 'Engineer',
          },
        },
        credentials,
      ),
    answerBytes,
  };
}

export async function measureLatencyCeiling(
  latencyMs: number,
  concurrency: number,
  requests: number,
  size: CallSize = ONE_LINE,
): Promise<Ceiling> {
  const server = spawn(
    process.execPath,
    ['--input-type=module', '-e', SERVER, String(latencyMs), String(size.answerBytes)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const [line] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];
    const origin = `http://127.0.0.1:${line.trim()}`;
    const calls = Array.from({ length: requests }, (_, i) => size.request(i));
    const agent = new Agent({ connections: concurrency });
    const took: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < requests) {
          const call = calls[next++]!;
          const sent = performance.now();
          const answer = await request(`${origin}${call.target}`, {
            method: call.method,
            headers: call.headers,
            body: call.body ?? null,
            dispatcher: agent,
          });
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
