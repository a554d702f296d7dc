import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuiltCli } from '../helpers/built-cli.js';
import { removeWorkspace } from '../helpers/remove-workspace.js';

// The demo as a user runs it: the built CLI in its own process, from a folder of their own.
describe('evsync demo', () => {
  it('syncs the bundled conference against an in-process sandbox and says where to look next', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evsync-demo-'));
    try {
      const result = await runBuiltCli(['demo', '--data-dir', join(dir, 'data')], {
        cwd: dir,
        env: { LOG_LEVEL: 'silent', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      });
      expect(result.stderr).not.toMatch(/evsync: /);
      expect(result.code).toBe(0);
      const out = result.stdout;
      expect(out).toMatch(/Run \S+ \(demo, upsert\): completed/);
      // 300 attendees: 3 bad rows, one platform-wide attendee attached (203), the rest created.
      expect(out).toMatch(/^user\s+296\s+1\s+0\s+0\s+0\s+0\s+3$/m);
      expect(out).toMatch(/^event\s+38\s+0\s+0\s+0\s+0\s+0\s+2$/m);
      expect(out).toMatch(/1 × 203/);
      expect(out).toMatch(/"not-an-email" is not an e-mail address/);
      expect(out).toMatch(/skipped because user "att-9999" is unknown/);
      const runId = /Run (\S+) \(demo/.exec(out)![1]!;

      // The follow-up commands it prints work as printed, from the folder it ran in.
      const printed = followUps(out);
      expect(printed.map((c) => c.args[0])).toEqual(['runs', 'report', 'report', 'plan']);
      // One after another, as a person pastes them.
      const answers = [];
      for (const { env, args } of printed)
        answers.push(await runBuiltCli(args, { cwd: dir, env: { ...env, LOG_LEVEL: 'silent' } }));
      const [runs, failed, json, plan] = answers;
      expect(runs!.code).toBe(0);
      expect(runs!.stdout).toMatch(new RegExp(`${runId}\\s+demo\\s+\\S+\\s+manual\\s+upsert\\s+completed`));
      expect(failed!.code).toBe(0);
      const lines = failed!.stdout.trim().split('\r\n');
      expect(lines[0]).toBe(
        'run_id,conference,kind,key,action,source,row,line,platform_id,http_status,error_code,message,attempts,duration_ms,recorded_at,name,email',
      );
      expect(lines).toHaveLength(1 + 5 + 7);
      expect(JSON.parse(json!.stdout)).toHaveLength(691);
      // The plan compares with what the demo synced: what it created is unchanged now.
      expect(plan!.stderr).not.toMatch(/evsync: /);
      expect(plan!.stdout).toMatch(/^user\s+0\s+0\s+0\s+297\s+3\s+0$/m);
      expect((await runBuiltCli(['report', 'no-such-run'], { cwd: dir, env: printed[0]!.env })).code).toBe(2);
    } finally {
      // The demo's embedded ledger server may still write into its folder (ENOTEMPTY in CI).
      await removeWorkspace(dir);
    }
  }, 120_000);
});

/** The `VAR=value … evsync ARGS` lines the demo prints, without comments and redirections. */
function followUps(out: string): Array<{ env: NodeJS.ProcessEnv; args: string[] }> {
  return out
    .split('\n')
    .filter((line) => /^ {2}(?:\w+=\S+ )+(?:npx )?evsync /.test(line))
    .map((line) => {
      const words = line.replace(/#.*$/, '').replace(/>.*$/, '').trim().split(/\s+/);
      const env: NodeJS.ProcessEnv = {};
      while (/^\w+=/.test(words[0]!)) {
        const [name, ...value] = words.shift()!.split('=');
        env[name!] = value.join('=');
      }
      return { env, args: words.slice(words[0] === 'npx' ? 2 : 1) };
    });
}
