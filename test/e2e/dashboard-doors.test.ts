import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliWorkspace,
  startBuiltDashboard,
  type BuiltDashboard,
  type CliWorkspace,
} from '../helpers/built-cli.js';

const TOKEN = 'doors-test-token-0123456789';
const CLIENTS = 8;
const SECONDS = 3;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * One request over its own connection from a loopback address of its own (127.0.0.0/8 is
 * all this machine's): what the dashboard takes for a client address. `bodyBytes` of
 * `sent` is what goes out; `contentLength` is what the request says it carries.
 */
function send(
  base: string,
  path: string,
  options: {
    from: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    contentLength?: number;
    chunks?: number;
  },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.contentLength !== undefined) headers['content-length'] = options.contentLength;
    const req = request(
      url,
      { method: options.method ?? 'GET', headers, localAddress: options.from, agent: false },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, headers: res.headers });
      },
    );
    req.on('error', reject);
    if (options.chunks !== undefined) {
      // A body without Content-Length, a chunk every few milliseconds, until the answer
      // comes. Paced as a browser's upload is: the server drains what follows its answer
      // for only 500 ms (@hono/node-server), and a client that keeps writing into a
      // closed socket gets EPIPE before it reads the answer already in its buffer.
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      let answered = false;
      const pump = (): void => {
        if (answered || req.destroyed) return;
        if (sent === options.chunks) return void req.end();
        sent += 1;
        req.write(chunk, () => setTimeout(pump, 5));
      };
      req.on('response', () => (answered = true));
      pump();
      return;
    }
    if (options.body !== undefined) req.write(options.body);
    // A Content-Length larger than what was sent: the request stays open, unless answered.
    if (options.contentLength === undefined) req.end();
  });
}

/** Each way a token comes in, as a wrong guess. */
const WAYS: Record<string, (guess: string) => Parameters<typeof send>[2] & { path: string }> = {
  form: (guess) => ({
    path: '/login',
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: guess }).toString(),
    from: '',
  }),
  url: (guess) => ({ path: `/login?token=${guess}`, from: '' }),
  bearer: (guess) => ({
    path: '/runs',
    headers: { authorization: `Bearer ${guess}`, accept: 'application/json' },
    from: '',
  }),
};

/**
 * `CLIENTS` clients guessing one after another for `SECONDS`: how many guesses a second
 * were compared and answered (`checked`: a 401, or a 303 had one been right), and how many
 * answers of any kind (a 429 compares nothing).
 */
async function guessRate(
  base: string,
  way: keyof typeof WAYS,
  addressOf: (client: number) => string,
): Promise<{ checked: number; answered: number }> {
  const end = Date.now() + SECONDS * 1000;
  let checked = 0;
  let answered = 0;
  let n = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      while (Date.now() < end) {
        const { path, ...init } = WAYS[way]!(`guess-${(n += 1)}`);
        const answer = await send(base, path, { ...init, from: addressOf(client) });
        // Answers that come after the window still count: they were guesses made in it.
        answered += 1;
        if (answer.status !== 429) checked += 1;
      }
    }),
  );
  return { checked: checked / SECONDS, answered: answered / SECONDS };
}

// The dashboard as users run it (the built CLI, `npm run build` first), asked over real
// connections: wrong tokens on every way in, `next=` and request bodies.
describe('the dashboard doors (built CLI)', () => {
  let workspace: CliWorkspace;
  let dashboard: BuiltDashboard | undefined;
  let base: string;
  const stderr = (): string => dashboard?.stderr() ?? '';

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-dashboard-doors-');
    dashboard = await startBuiltDashboard({
      cwd: workspace.dir,
      env: { EVSYNC_DASHBOARD_TOKEN: TOKEN, EVSYNC_DATA_DIR: `${workspace.dir}/data`, LOG_LEVEL: 'info' },
    });
    base = dashboard.base;
  }, 90_000);
  afterAll(async () => {
    await dashboard?.stop();
    await workspace?.close();
  });

  it(`answers at most 20 guesses a second on every way in, ${CLIENTS} clients at once, and logs them without the guess`, async () => {
    const rates: Record<string, { checked: number; answered: number }> = {};
    // Each way from an address of its own: a lockout of one does not end the next measure.
    const ways = Object.keys(WAYS);
    for (const [i, way] of ways.entries()) {
      rates[way] = await guessRate(base, way, () => `127.0.0.${i + 2}`);
    }
    // Eight clients of eight addresses: the bound over all addresses together.
    rates['bearer, 8 addresses'] = await guessRate(base, 'bearer', (client) => `127.0.1.${client + 1}`);
    console.info(
      `guesses/s compared (answered) with ${CLIENTS} clients over ${SECONDS} s:\n` +
        Object.entries(rates)
          .map(([way, r]) => `  ${way}: ${r.checked.toFixed(1)} (${r.answered.toFixed(1)})`)
          .join('\n'),
    );
    for (const [way, rate] of Object.entries(rates)) expect(rate.checked, way).toBeLessThanOrEqual(20);
    // Locked out now: the right token from a locked address is refused unchecked, with when to come back.
    const locked = await send(base, '/runs', {
      from: '127.0.0.4',
      headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // Another address still gets in.
    const other = await send(base, '/runs', {
      from: '127.0.0.9',
      headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
    });
    expect(other.status).toBe(200);
    const logged = stderr()
      .split('\n')
      .filter((line) => line.includes('wrong token'));
    expect(logged.length).toBeGreaterThan(10);
    expect(
      logged.some((line) => line.includes('"address":"127.0.0.3"') && line.includes('"way":"url"')),
    ).toBe(true);
    expect(stderr()).toContain('address locked out');
    expect(stderr()).not.toMatch(/guess-\d/);
  }, 60_000);

  it('answers 413 to a body larger than a form, from Content-Length or while reading, before it is all sent', async () => {
    const declared = await send(base, '/login', {
      from: '127.0.0.20',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=x&',
      contentLength: 200 * 1024 * 1024,
    });
    expect(declared.status).toBe(413);
    // 32 MB without a Content-Length: refused once the first few KB are read.
    const streamed = await send(base, '/login', {
      from: '127.0.0.21',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      chunks: 512,
    });
    expect(streamed.status).toBe(413);
    // Behind the login too, and before the login is checked.
    const action = await send(base, '/runs/x/retry', {
      from: '127.0.0.22',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: '{}',
      contentLength: 10 * 1024 * 1024,
    });
    expect(action.status).toBe(413);
    // A form of a usual size is read as before.
    const small = await send(base, '/login', {
      from: '127.0.0.23',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, next: '/runs?limit=5' }).toString(),
    });
    expect(small.status).toBe(303);
    expect(small.headers.location).toBe('/runs?limit=5');
  }, 30_000);
});
