import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutcomeUnknownError, PlatformUnreachableError } from '../../../src/platform/platform-error.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { signedCall } from '../../helpers/signed-request.js';
import { SIGNING_KEY, failure, sandboxWithClient, userParams } from './sandbox-fixture.js';

interface AdminBody {
  [key: string]: unknown;
  spec?: string;
  error?: string;
  total?: number;
  config?: unknown;
  added?: unknown;
  endpoints?: string[];
  users?: Array<{ email: string }>;
}

async function admin(sandbox: RunningSandbox, method: string, path: string, body?: unknown) {
  const answer = await request(`${sandbox.url}/_sandbox/${path}`, {
    method: method as 'GET',
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return {
    status: answer.statusCode,
    headers: answer.headers,
    body: (await answer.body.json()) as AdminBody,
  };
}

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ signingKey: SIGNING_KEY });
});
afterAll(() => sandbox.close());

describe('faults', () => {
  it('are off by default and set through the admin endpoint, as a spec string or JSON', async () => {
    expect((await admin(sandbox, 'GET', 'faults')).body.spec).toBe('none');
    const set = await admin(sandbox, 'PUT', 'faults', { spec: '503=2x' });
    expect(set.body.spec).toBe('503=2x');
    expect((await signedCall(sandbox, 'GET', '/user')).status).toBe(503);
    expect((await signedCall(sandbox, 'GET', '/user')).status).toBe(503);
    expect((await signedCall(sandbox, 'GET', '/user')).status).toBe(200);
    await admin(sandbox, 'PUT', 'faults', { error500: { next: 1 } });
    const failed = await signedCall(sandbox, 'GET', '/user');
    expect(failed.status).toBe(500);
    expect(failed.json<{ error: string }>().error).toMatch(/injected/);
    const bad = await admin(sandbox, 'PUT', 'faults', { spec: 'explode=1' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/unknown fault "explode"/);
    expect((await admin(sandbox, 'DELETE', 'faults')).body.spec).toBe('none');
  });

  it('adds latency, fixed or from a range', async () => {
    sandbox.faults.set({ latency: { minMs: 120, maxMs: 120 } });
    const started = performance.now();
    await signedCall(sandbox, 'GET', '/user');
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    sandbox.faults.set({});
  });

  it('resets connections without an answer, and the server goes on', async () => {
    sandbox.faults.set({ reset: { next: 1 } });
    await expect(signedCall(sandbox, 'GET', '/user')).rejects.toThrow();
    expect((await signedCall(sandbox, 'GET', '/user')).status).toBe(200);
    expect(sandbox.counters.snapshot().statuses.reset).toBe(1);
  });

  it('commit-then-drop applies the write and loses the answer; the counters show the one create', async () => {
    const { client, sandbox: own, close } = await sandboxWithClient({ faults: 'commit-drop=1x' });
    try {
      const params = userParams();
      const lost = await failure(() => client.users.create(params));
      expect(lost instanceof OutcomeUnknownError || lost instanceof PlatformUnreachableError).toBe(true);
      expect(own.counters.createsOf('user', params.client_id!)).toBe(1);
      const found = await client.users.getByEmail(params['user[svc_auth_attributes][email]']!);
      expect(found?.client_ids).toEqual([params.client_id]);
      // A naive retry is refused: the user is already here.
      expect((await signedCall(own, 'POST', '/user', { body: params })).status).toBe(422);
    } finally {
      await close();
    }
  });

  it('commit-then-500 applies the write and answers 500', async () => {
    sandbox.faults.set({ commit500: { next: 1 } });
    const params = userParams();
    expect((await signedCall(sandbox, 'POST', '/user', { body: params })).status).toBe(500);
    expect(sandbox.state.userByClientId(params.client_id!)?.inConference).toBe(true);
    // GETs are never "committed then failed".
    sandbox.faults.set({ commit500: { fraction: 1 } });
    expect((await signedCall(sandbox, 'GET', '/user')).status).toBe(200);
    sandbox.faults.set({});
  });

  it('fractions with a seed fire reproducibly', async () => {
    const outcomes = async (): Promise<number[]> => {
      sandbox.faults.set({ error503: { fraction: 0.5 }, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) statuses.push((await signedCall(sandbox, 'GET', '/user')).status);
      return statuses;
    };
    const first = await outcomes();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await outcomes()).toEqual(first);
    sandbox.faults.set({});
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After in seconds per key_id once the bucket is empty', async () => {
    const limited = await startSandbox({ signingKey: SIGNING_KEY, rateLimit: { perSecond: 2, burst: 3 } });
    try {
      const statuses: number[] = [];
      let retryAfter: string | string[] | undefined;
      for (let i = 0; i < 5; i += 1) {
        const answer = await signedCall(limited, 'GET', '/user');
        statuses.push(answer.status);
        if (answer.status === 429) retryAfter = answer.headers['retry-after'];
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses).toContain(429);
      expect(retryAfter).toBe('1');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await signedCall(limited, 'GET', '/user')).status).toBe(200);
      expect((await admin(limited, 'PUT', 'rate-limit', null)).body.config).toBeNull();
      for (let i = 0; i < 5; i += 1) expect((await signedCall(limited, 'GET', '/user')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('admin endpoints', () => {
  it('count calls per endpoint and method, statuses and creates per client_id', async () => {
    await admin(sandbox, 'POST', 'reset');
    const params = userParams();
    const started = Date.now();
    await signedCall(sandbox, 'POST', '/user', { body: params });
    await signedCall(sandbox, 'POST', '/user', { body: params });
    const created = sandbox.state.userByClientId(params.client_id!)!;
    await signedCall(sandbox, 'GET', `/user/member/${created.id}`);
    await signedCall(sandbox, 'GET', '/nowhere');
    const counters = (await admin(sandbox, 'GET', 'counters')).body;
    expect(counters).toMatchObject({
      total: 4,
      calls: { 'POST /user': 2, 'GET /user/member/{id}': 1, 'GET (unknown path)': 1 },
      statuses: { '200': 2, '422': 1, '404': 1 },
      creates: { user: { [params.client_id!]: 1 } },
      duplicates: {},
    });
    // The span of the counted calls: a client's throughput as the platform sees it.
    expect(counters.firstAt).toBeGreaterThanOrEqual(started);
    expect(counters.lastAt).toBeGreaterThanOrEqual(counters.firstAt as number);
    expect(counters.lastAt).toBeLessThanOrEqual(Date.now());
    expect(sandbox.counters.callsTo('POST', '/user')).toBe(2);
    await admin(sandbox, 'DELETE', 'counters');
    const reset = (await admin(sandbox, 'GET', 'counters')).body;
    expect(reset.total).toBe(0);
    expect(reset.firstAt).toBeUndefined();
  });

  it('dump the state, seed it, and reset it to the start', async () => {
    const seeded = await admin(sandbox, 'POST', 'seed', {
      users: [{ first_name: 'Wide', last_name: 'Known', email: 'wide@example.org' }],
      exhibitors: [{ name: 'Booth', client_ids: ['booth-1'] }],
    });
    expect(seeded.body.added).toEqual({ users: 1, exhibitors: 1, events: 0 });
    const attach = await signedCall(sandbox, 'POST', '/user', {
      body: userParams({ 'user[svc_auth_attributes][email]': 'wide@example.org' }),
    });
    expect(attach.status).toBe(203);
    const state = (await admin(sandbox, 'GET', 'state')).body;
    expect(state.users?.map((user) => user.email)).toContain('wide@example.org');
    expect(JSON.stringify(state)).not.toMatch(/"password"/i);
    const badSeed = await admin(sandbox, 'POST', 'seed', { users: [{ first_name: 'No mail' }] });
    expect(badSeed.status).toBe(400);
    await admin(sandbox, 'POST', 'reset');
    expect(sandbox.state.userByEmail('wide@example.org')).toBeUndefined();
    expect((await admin(sandbox, 'GET', 'nothing')).status).toBe(404);
    expect((await admin(sandbox, 'PATCH', 'state')).status).toBe(405);
    expect((await admin(sandbox, 'GET', '')).body.endpoints).toContain('GET /_sandbox/counters');
  });
});

describe('reset', () => {
  it('puts back the seeded users as they were, so the 203 path can be rehearsed again', async () => {
    const seeded = await startSandbox({
      signingKey: SIGNING_KEY,
      seed: { users: [{ first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.org' }] },
    });
    try {
      const create = () =>
        signedCall(seeded, 'POST', '/user', {
          body: userParams({ client_id: 'att-42', 'user[svc_auth_attributes][email]': 'grace@example.org' }),
        });
      expect((await create()).status).toBe(203);
      expect(seeded.state.userByEmail('grace@example.org')?.inConference).toBe(true);
      await admin(seeded, 'POST', 'reset');
      const grace = seeded.state.userByEmail('grace@example.org');
      expect(grace?.inConference).toBe(false);
      expect(grace?.clientIds).toEqual([]);
      expect((await create()).status).toBe(203);
    } finally {
      await seeded.close();
    }
  });
});

describe('state file and CLI', () => {
  it('saves every change to --state and starts again from it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evsync-sandbox-'));
    try {
      const file = join(dir, 'conference.json');
      const first = await startSandbox({ signingKey: SIGNING_KEY, stateFile: file });
      const params = userParams();
      await signedCall(first, 'POST', '/user', {
        body: { ...params, 'user[svc_auth_attributes][password]': 'Secret-1' },
      });
      await first.close();
      const saved = await readFile(file, 'utf8');
      expect(saved).toContain(params.client_id);
      expect(saved).not.toContain('Secret-1');
      const second = await startSandbox({ signingKey: SIGNING_KEY, stateFile: file });
      try {
        const again = await signedCall(second, 'GET', '/user/member', {
          query: { client_id: params.client_id! },
        });
        expect(again.status).toBe(200);
        const next = await signedCall(second, 'POST', '/user', { body: userParams() });
        expect(next.json<{ id: number }>().id).toBeGreaterThan(again.json<{ id: number }>().id);
      } finally {
        await second.close();
      }
      await writeFile(join(dir, 'wrong.json'), '{"users": []}');
      await expect(startSandbox({ stateFile: join(dir, 'wrong.json') })).rejects.toThrow(
        /not a sandbox state file/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('`evsync sandbox --json` prints its URL and credentials and serves signed calls', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'sandbox', '--port', '0', '--signing-key', 'cli-key', '--json'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
      });
      const started = JSON.parse(line) as { url: string; keyId: string; signingKey: string };
      expect(started).toMatchObject({ keyId: '1', signingKey: 'cli-key' });
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const answer = await signedCall({ url: started.url, keyId: 1, signingKey: 'cli-key' }, 'GET', '/user');
      expect(answer.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
