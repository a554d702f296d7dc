import { hash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { startSandbox } from '../../src/sandbox/start-sandbox.js';
import { runCli } from '../helpers/run-cli.js';
import { stubCliEnv } from './cli-in-process.js';
import { jobYaml } from './sync-harness.js';
import { PASSWORD_USERS_MAPPING } from '../helpers/users-csv.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

const USERS = 50;
const PASSWORD = 'user[svc_auth_attributes][password]';
const MAPPING = PASSWORD_USERS_MAPPING;

function csv(passwordOf: (i: number) => string): string {
  const lines = ['client_id,email,first_name,last_name,password'];
  for (let i = 1; i <= USERS; i += 1)
    lines.push(`s${i},s${i}@example.org,First${i},Last${i},${passwordOf(i)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * What someone holding only a copy of the ledger computes for a password guess: SHA-256
 * over the stored params with the guess in place of `[redacted]`, as evsync hashed them
 * up to migration 4. It must match nothing the ledger holds, even for the right guess.
 */
function guessHash(params: Record<string, string>, guess: string): string {
  const full: Record<string, string> = { ...params, [PASSWORD]: guess };
  let text = 'upsert';
  for (const name of Object.keys(full).sort()) {
    const value = full[name] ?? '';
    text += `\u0000${name.length}:${name}\u0000${value.length}:${value}`;
  }
  return hash('sha256', text, 'hex');
}

// `evsync run` as a user types it, in this process, on an embedded ledger; then the
// ledger's content read as someone who copied it would.
describe('the ledger lets nobody test a password guess', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  const password = (i: number): string => `pw-${i}-Secret!`;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evsync-secrets-'));
    sandbox = await startSandbox();
    stubCliEnv(sandbox, join(dir, 'data'));
    writeFileSync(join(dir, 'users.yaml'), MAPPING);
    writeFileSync(join(dir, 'users.csv'), csv(password));
    writeFileSync(
      join(dir, 'job.yaml'),
      jobYaml('secrets', '  - { mapping: ./users.yaml, source: { csv: ./users.csv } }\n'),
    );
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await sandbox.close();
    await removeWorkspace(dir);
  });

  it('stores no hash that the right password, guessed offline, would reproduce', async () => {
    const run = await runCli('run', join(dir, 'job.yaml'));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^user +${USERS} +0 +0 +0 +0 +0 +0$`, 'm'));

    const ledger = await openLedger({ dataDir: join(dir, 'data') });
    try {
      const [stored] = await ledger.listRuns(1);
      // A completed run keeps its results, not its planned intents (docs/ledger.md).
      const created = await ledger.results(stored!.id, { actions: ['created'] });
      const synced = await ledger.forConference({ ...stored!.conference!, keyId: null }).loadHashes('user');
      expect(created).toHaveLength(USERS);
      for (const result of created) {
        const i = Number(result.key.slice(1));
        // What the copy holds: the other params in clear, the password redacted.
        expect(result.params[PASSWORD]).toBe('[redacted]');
        const rightGuess = guessHash(result.params, password(i));
        expect(synced.get(result.key)).not.toBe(rightGuess);
        expect(synced.get(result.key)).toMatch(/^k1:[0-9a-f]{8}:[0-9a-f]{64}$/);
      }
    } finally {
      await ledger.close();
    }
  }, 120_000);

  it('still sees an unchanged row as unchanged, and a password changed in the source as a change', async () => {
    const plan = await runCli('plan', join(dir, 'job.yaml'));
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(new RegExp(`^user +0 +0 +0 +${USERS} +0 +0$`, 'm'));
    const again = await runCli('run', join(dir, 'job.yaml'));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^user +0 +0 +0 +${USERS} +0 +0 +0$`, 'm'));

    writeFileSync(
      join(dir, 'users.csv'),
      csv((i) => (i === 7 ? 'a-new-Secret!' : password(i))),
    );
    const changed = await runCli('run', join(dir, 'job.yaml'));
    expect(changed.code).toBe(0);
    expect(changed.stdout).toMatch(new RegExp(`^user +0 +0 +1 +${USERS - 1} +0 +0 +0$`, 'm'));
  }, 120_000);

  it('plans a row with a password as changed when the signing key is not set, never as unchanged', async () => {
    vi.stubEnv('EVSYNC_SIGNING_KEY', '');
    try {
      const plan = await runCli('plan', join(dir, 'job.yaml'));
      expect(plan.code).toBe(0);
      expect(plan.stdout).toMatch(new RegExp(`^user +0 +${USERS} +0 +0 +0 +0$`, 'm'));
    } finally {
      vi.stubEnv('EVSYNC_SIGNING_KEY', sandbox.signingKey);
    }
  }, 120_000);
});
