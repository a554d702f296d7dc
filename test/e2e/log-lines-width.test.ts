import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

// Issue #40, item 10: on a terminal, a long log line (the columns a source lacks, say)
// wrapped anywhere across the screen in front of the progress bar. Human log lines now
// keep within the width (the terminal's, or COLUMNS as a shell sets it when piped).
describe('human log lines keep within the terminal width (built CLI)', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    workspace = cliWorkspace('evsync-log-width-');
    sandbox = await workspace.sandbox();
    workspace.write({
      'people.csv': 'client_id,email,first_name,last_name\nl1,l1@example.org,Ann,One\n',
      'job.yaml': 'name: widths\nsteps:\n  - mapping: users\n    source: { csv: ./people.csv }\n',
    });
  });
  afterAll(async () => workspace?.close());

  it('wraps a long line at words, its next lines indented under the message', async () => {
    const run = await workspace.run(sandbox, ['run', 'job.yaml'], {
      EVSYNC_LOG_FORMAT: 'text',
      LOG_LEVEL: 'info',
      COLUMNS: '80',
    });
    expect(run.code).toBe(0);
    const lines = run.stderr.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    const start = lines.findIndex((line) => line.includes('1 source lacks columns the mapping reads'));
    expect(start).toBeGreaterThanOrEqual(0);
    expect(lines[start]).toMatch(/^\d\d:\d\d:\d\d evsync: /);
    const rest: string[] = [];
    for (const line of lines.slice(start + 1)) {
      if (!line.startsWith(' '.repeat('00:00:00 evsync: '.length))) break;
      rest.push(line.trim());
    }
    // The whole of it, a map in words rather than JSON.
    const text = [lines[start], ...rest].join(' ');
    expect(text).toContain('missing CSV file ./people.csv (users): salutation, membership, company');
    expect(text).toContain('phone_fax)');
    expect(text).not.toContain('{"');
  }, 60_000);
});
