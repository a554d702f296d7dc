import { networkInterfaces } from 'node:os';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/log/logger.js';
import { startSandbox } from '../../../src/sandbox/start-sandbox.js';
import { signedCall } from '../../helpers/signed-request.js';
import { SIGNING_KEY } from './sandbox-fixture.js';

describe('sandbox options', () => {
  it('speaks another vendor word in the auth params', async () => {
    const sandbox = await startSandbox({ signingKey: SIGNING_KEY, vendor: 'acme' });
    try {
      const params = {
        client_id: 'v-1',
        'user[first_name]': 'Vera',
        'user[last_name]': 'Vendor',
        'user[acme_auth_attributes][email]': 'vera@example.org',
      };
      expect((await signedCall(sandbox, 'POST', '/user', { body: params })).status).toBe(200);
      const found = await signedCall(sandbox, 'GET', '/user/member', {
        query: { 'user[acme_auth_attributes][email]': 'vera@example.org' },
      });
      expect(found.json<{ first_name: string }>().first_name).toBe('Vera');
      const svc = await signedCall(sandbox, 'POST', '/user', {
        body: {
          ...params,
          client_id: 'v-2',
          'user[acme_auth_attributes][email]': '',
          'user[svc_auth_attributes][email]': 'x@example.org',
        },
      });
      expect(svc.status).toBe(422);
      expect(svc.json<{ errors: object }>().errors).toHaveProperty(['user[acme_auth_attributes][email]']);
    } finally {
      await sandbox.close();
    }
  });

  it('generates a signing key when none is given, and uses the key_id it was given', async () => {
    const sandbox = await startSandbox({ keyId: 77 });
    try {
      expect(sandbox.signingKey).toMatch(/^[0-9a-f]{32}$/);
      expect(sandbox.keyId).toBe('77');
      expect((await signedCall(sandbox, 'GET', '/user')).status).toBe(200);
      expect((await signedCall({ ...sandbox, keyId: 1 }, 'GET', '/user')).status).toBe(401);
    } finally {
      await sandbox.close();
    }
  });

  it('answers admin calls from loopback only', async () => {
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal);
    if (!outside) {
      console.warn(
        '\n*** SKIPPING the non-loopback admin check: this machine has no external IPv4 address. ***\n',
      );
      return;
    }
    const sandbox = await startSandbox({ signingKey: SIGNING_KEY, host: '0.0.0.0' });
    try {
      const port = new URL(sandbox.url).port;
      const fromOutside = await request(`http://${outside.address}:${port}/_sandbox/state`);
      expect(fromOutside.statusCode).toBe(403);
      expect(((await fromOutside.body.json()) as { error: string }).error).toMatch(/loopback/);
      const api = await signedCall({ ...sandbox, url: `http://${outside.address}:${port}` }, 'GET', '/user');
      expect(api.status).toBe(200);
      expect((await request(`${sandbox.url}/_sandbox/state`)).statusCode).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it('says which address is taken when the port is in use', async () => {
    const first = await startSandbox({ signingKey: SIGNING_KEY });
    try {
      const port = Number(new URL(first.url).port);
      await expect(startSandbox({ port })).rejects.toThrow(`The sandbox address 127.0.0.1:${port} is in use`);
    } finally {
      await first.close();
    }
  });

  it('rejects a bad fault spec at start with an example', async () => {
    await expect(startSandbox({ faults: 'latency=soon' })).rejects.toThrow(
      /latency takes milliseconds.*Example/s,
    );
    await expect(startSandbox({ faults: '503=2' })).rejects.toThrow(/Bad fault spec/);
  });

  it('logs each call at debug level by endpoint and status, never params, sig or key', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const sandbox = await startSandbox({
      signingKey: SIGNING_KEY,
      logger: createLogger({ level: 'debug' }, sink),
    });
    try {
      const body = {
        client_id: 'log-1',
        'user[first_name]': 'Lo',
        'user[last_name]': 'Gger',
        'user[svc_auth_attributes][email]': 'log@example.org',
        'user[svc_auth_attributes][password]': 'Hunter2-secret',
      };
      expect((await signedCall(sandbox, 'POST', '/user', { body })).status).toBe(200);
      const call = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.msg === 'sandbox call');
      expect(call).toMatchObject({ endpoint: 'POST /user', status: 200 });
      const all = lines.join('');
      expect(all).not.toContain('Hunter2-secret');
      expect(all).not.toContain(SIGNING_KEY);
      expect(all).not.toContain('sig=');
    } finally {
      await sandbox.close();
    }
  });
});
