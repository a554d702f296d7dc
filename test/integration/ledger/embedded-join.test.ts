import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopEmbeddedServer } from '../../../src/ledger/embedded-server.js';

const JOINER = resolve(import.meta.dirname, '../../helpers/ledger-joiner-process.ts');
const dataDir = mkdtempSync(join(tmpdir(), 'evsync-join-'));
afterAll(async () => {
  await stopEmbeddedServer(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

function joiner(rounds: number): Promise<{ failures: string[]; slowestMs: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', JOINER, dataDir, String(rounds)], {
    // A server idle for a second stops: every pause between two rounds may meet a stop.
    env: { ...process.env, EVSYNC_LEDGER_IDLE_SECONDS: '1', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((done, fail) =>
    child.once('close', (code) => {
      try {
        done(JSON.parse(out) as { failures: string[]; slowestMs: number });
      } catch {
        fail(new Error(`joiner exited ${code}: ${err}`));
      }
    }),
  );
}

// The keeper stops an idle server while processes keep joining it (docs/ledger.md, "Idle
// stop"). A join between the keeper's last count and its stop once left a server that
// waited for the newcomer while refusing its next connection: its job lock failed ("the
// database system is shutting down"), or it waited 60 s for a server it held up itself.
describe('the embedded ledger joined while its keeper stops it when idle', () => {
  it(
    'every join opens, locks and closes, however the stops and joins meet',
    { timeout: 240_000 },
    async () => {
      const results = await Promise.all([joiner(12), joiner(12), joiner(12)]);
      expect(results.flatMap((r) => r.failures)).toEqual([]);
      // A join waits at most for a stop and a start, never for a server it holds up.
      expect(Math.max(...results.map((r) => r.slowestMs))).toBeLessThan(30_000);
      // The stops did meet the joins: the keeper stopped the server several times.
      const stops = readFileSync(join(dataDir, 'postgres.log'), 'utf8').match(/stopping the server/g) ?? [];
      expect(stops.length).toBeGreaterThan(2);
    },
  );
});
