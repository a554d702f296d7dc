import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { removeWorkspace } from '../../helpers/remove-workspace.js';

const child = fileURLToPath(new URL('./fixtures/write-results-slowly.ts', import.meta.url));
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await removeWorkspace(dir);
});

/** Starts the writer child and kills it with SIGKILL some time after it is ready. */
function runAndKill(dataDir: string, killAfterMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let runId: string | undefined;
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /ready (\S+)\n/.exec(out);
      if (ready?.[1] !== undefined && runId === undefined) {
        runId = ready[1];
        setTimeout(() => proc.kill('SIGKILL'), killAfterMs);
      }
    });
    // Resolve only once the child is reaped: until then its pid still looks alive.
    proc.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' && runId !== undefined) resolve(runId);
      else reject(new Error(`child ended before the kill (code ${code}): ${out} ${err}`));
    });
  });
}

describe('embedded ledger after kill -9', () => {
  it(
    'reopens with every committed batch, and pending = planned minus results',
    { timeout: 240_000 },
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'evsync-ledger-kill-'));
      dirs.push(dataDir);
      const runId = await runAndKill(dataDir, 1500);
      await new Promise((resolve) => setTimeout(resolve, 200));

      const ledger = await openLedger({ dataDir, databaseUrl: '' });
      try {
        expect((await ledger.getRun(runId))?.status).toBe('running');
        const results = await ledger.results(runId);
        const pending = await ledger.pendingIntents(runId);
        expect(results.length % 100).toBe(0);
        expect(results.length).toBeGreaterThan(0);
        expect(results.length).toBeLessThan(5000);
        expect(results.length + pending.length).toBe(5000);
        const done = new Set(results.map((r) => r.key));
        expect(pending.some((p) => done.has(p.key))).toBe(false);
        const hashes = await ledger.loadHashes('user');
        expect([...hashes.keys()].filter((key) => key.startsWith('killed-'))).toHaveLength(results.length);
        expect(pending[0]?.key).toBe(`killed-${results.length}`);
      } finally {
        await ledger.close();
      }
    },
  );
});
