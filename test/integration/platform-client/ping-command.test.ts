import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { PlatformTestServer } from '../../helpers/platform-test-server.js';
import { startPlatformTestServer } from '../../helpers/platform-test-server.js';

const KEY = 'ping-signing-key';
let server: PlatformTestServer;
const saved = { ...process.env };

function capture(): { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation(
    (chunk: string | Uint8Array) => out.push(String(chunk)) > 0,
  );
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (chunk: string | Uint8Array) => err.push(String(chunk)) > 0,
  );
  return { out: () => out.join(''), err: () => err.join('') };
}

function configure(env: Record<string, string | undefined>): void {
  for (const name of ['EVSYNC_BASE_URL', 'EVSYNC_KEY_ID', 'EVSYNC_SIGNING_KEY', 'EVSYNC_VENDOR'])
    delete process.env[name];
  Object.assign(process.env, env);
}

beforeAll(async () => {
  server = await startPlatformTestServer(KEY);
  server.handle((request) => ({
    json: {
      signature_valid: request.signatureValid,
      problem: request.signatureValid ? null : 'sig does not match',
      expected_signing_string: `format=jsonkey_id=${request.query.key_id}${KEY}`,
    },
  }));
});
afterEach(() => {
  vi.restoreAllMocks();
  process.env = { ...saved };
  process.exitCode = undefined;
});
afterAll(async () => {
  await server.close();
});

describe('evsync ping', () => {
  it('prints the verdict for good credentials', async () => {
    configure({ EVSYNC_BASE_URL: server.url, EVSYNC_KEY_ID: '3', EVSYNC_SIGNING_KEY: KEY });
    const io = capture();
    expect(await main(['node', 'evsync', 'ping'])).toBe(0);
    expect(io.out()).toMatch(/signature accepted for key_id 3/);
    expect(server.requests.at(-1)?.path).toBe('/signature_test');
  });

  it('fails with exit 2 on a wrong key, showing what the platform hashed without the key', async () => {
    configure({ EVSYNC_BASE_URL: server.url, EVSYNC_KEY_ID: '3', EVSYNC_SIGNING_KEY: 'wrong-key-value' });
    const io = capture();
    expect(await main(['node', 'evsync', 'ping'])).toBe(2);
    expect(io.err()).toMatch(/rejected the signature of key_id 3: sig does not match/);
    expect(io.err()).toContain('format=jsonkey_id=3');
    expect(io.err()).not.toContain('wrong-key-value');
  });

  it('names every missing setting and exits 2', async () => {
    configure({});
    const io = capture();
    expect(await main(['node', 'evsync', 'ping'])).toBe(2);
    expect(io.err()).toMatch(/EVSYNC_BASE_URL/);
    expect(io.err()).toMatch(/EVSYNC_KEY_ID/);
    expect(io.err()).toMatch(/EVSYNC_SIGNING_KEY/);
  });

  it('exits 3 when the platform cannot be reached', async () => {
    configure({ EVSYNC_BASE_URL: 'http://127.0.0.1:1', EVSYNC_KEY_ID: '3', EVSYNC_SIGNING_KEY: KEY });
    const io = capture();
    expect(await main(['node', 'evsync', 'ping'])).toBe(3);
    expect(io.err()).toMatch(/could not reach the platform \(ECONNREFUSED\)/);
  });
});
