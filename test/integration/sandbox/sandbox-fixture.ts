import { PlatformClient } from '../../../src/platform/platform-client.js';
import type { FlatParams } from '../../../src/model/params.js';
import {
  startSandbox,
  type RunningSandbox,
  type SandboxOptions,
} from '../../../src/sandbox/start-sandbox.js';

export const SIGNING_KEY = 'sandbox-test-key';

/** A sandbox on a free port with a known key, and the project's own client pointed at it. */
export async function sandboxWithClient(
  options: SandboxOptions = {},
): Promise<{ sandbox: RunningSandbox; client: PlatformClient; close: () => Promise<void> }> {
  const sandbox = await startSandbox({ signingKey: SIGNING_KEY, keyId: 1, ...options });
  const client = new PlatformClient({
    baseUrl: sandbox.url,
    keyId: sandbox.keyId,
    signingKey: sandbox.signingKey,
    rateLimit: { requestsPerSecond: 100_000, burst: 1_000, concurrency: 16 },
    retry: { maxAttempts: 1 },
  });
  return {
    sandbox,
    client,
    close: async () => {
      await client.close();
      await sandbox.close();
    },
  };
}

let serial = 0;

/** Valid `user.create` params for a fresh user. */
export function userParams(overrides: FlatParams = {}): FlatParams {
  serial += 1;
  return {
    client_id: `u-${serial}`,
    'user[first_name]': `First${serial}`,
    'user[last_name]': `Last${serial}`,
    'user[svc_auth_attributes][email]': `user${serial}@example.org`,
    ...overrides,
  };
}

/** Valid `event.create` params for a fresh event. */
export function eventParams(overrides: FlatParams = {}): FlatParams {
  serial += 1;
  return {
    client_id: `e-${serial}`,
    'event[item_attributes][display_value]': `Session ${serial}`,
    'event[item_attributes][article][content]': '<p>About it</p>',
    'event[start]': '2026-06-01T09:00:00+02:00',
    'event[finish]': '2026-06-01T10:00:00+02:00',
    ...overrides,
  };
}

/** Collects an async generator (the client's paginated lists). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** Runs a call that must fail and returns its error. */
export async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
