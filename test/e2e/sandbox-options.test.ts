import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace, runBuiltCli } from '../helpers/built-cli.js';

describe('evsync sandbox options', () => {
  const workspace = cliWorkspace('evsync-sandbox-options-');
  afterAll(() => workspace.close());

  it('names each wrong option as typed, with its value, and starts nothing', async () => {
    const result = await runBuiltCli(['sandbox', '--key-id', 'abc', '--port', '99999999'], {
      cwd: workspace.dir,
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--key-id "abc" must be the integer key_id callers sign with, e.g. 1');
    expect(result.stderr).toContain('--port "99999999" must be a port number, 0 to 65535');
    expect(result.stderr).not.toContain('keyId');
  });
});
