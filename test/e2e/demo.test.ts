import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

// The demo as a user runs it: the CLI in its own process, nothing but the checkout.
describe('evsync demo', () => {
  it('syncs the bundled conference against an in-process sandbox and says where to look next', () => {
    const dir = mkdtempSync(join(tmpdir(), 'evsync-demo-'));
    try {
      const result = spawnSync(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'demo', '--data-dir', join(dir, 'data')],
        {
          cwd: ROOT,
          env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
          encoding: 'utf8',
          timeout: 280_000,
        },
      );
      expect(result.stderr).not.toMatch(/evsync: /);
      expect(result.status).toBe(0);
      const out = result.stdout;
      expect(out).toMatch(/Run \S+ \(demo, upsert\): completed/);
      // 300 attendees: 3 bad rows, one platform-wide attendee attached (203), the rest created.
      expect(out).toMatch(/^user\s+296\s+1\s+0\s+0\s+0\s+0\s+3$/m);
      expect(out).toMatch(/^event\s+38\s+0\s+0\s+0\s+0\s+0\s+2$/m);
      expect(out).toMatch(/1 × 203/);
      expect(out).toMatch(/"not-an-email" is not an e-mail address/);
      expect(out).toMatch(/skipped because user "att-9999" is unknown/);
      expect(out).toMatch(/evsync report \S+ --status failed/);

      // The follow-up commands the demo suggests work on its ledger.
      const runId = /Run (\S+) \(demo/.exec(out)![1]!;
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], {
          cwd: ROOT,
          env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: '', EVSYNC_DATA_DIR: join(dir, 'data') },
          encoding: 'utf8',
          timeout: 120_000,
        });
      const runs = cli('runs');
      expect(runs.status).toBe(0);
      expect(runs.stdout).toMatch(new RegExp(`${runId}\\s+demo\\s+\\S+\\s+manual\\s+upsert\\s+completed`));
      const report = cli('report', runId, '--status', 'failed');
      expect(report.status).toBe(0);
      const lines = report.stdout.trim().split('\r\n');
      expect(lines[0]).toBe(
        'run_id,conference,kind,key,action,source,row,line,platform_id,http_status,error_code,message,attempts,duration_ms,recorded_at,name,email',
      );
      expect(lines).toHaveLength(1 + 5);
      expect(cli('report', 'no-such-run').status).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
