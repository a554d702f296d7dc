import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { jobYaml, people, usersCsv } from '../helpers/users-csv.js';

const CHECK_INS = 12;

// Issue #41 point 2: the same job with EVSYNC_BASE_URL=http://127.0.0.1:P, then
// http://localhost:P, took the second for a new conference and posted every check-in again
// (check-ins have nothing to look up). A base URL new to the ledger is now asked whether it
// answers as a conference the ledger knows: then the run stops (exit 2) naming it, or, with
// --same-conference, syncs it as that one. Each run says which conference it talks to.
describe('a conference by another name (built CLI)', { timeout: 180_000 }, () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let port: string;
  const checkInPosts = (): number => sandbox.counters.callsTo('POST', '/check_in');

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-conf-alias-');
    sandbox = await workspace.sandbox();
    port = new URL(sandbox.url).port;
    const users = people(6, 'ca');
    const rows = Array.from(
      { length: CHECK_INS },
      (_, i) => `ca-${i + 1},${users[i % users.length]!.id},,,"13.${1000 + i},52.5",Stand ${i + 1}`,
    );
    workspace.write({
      'ca-users.csv': usersCsv(users),
      'ca-check_ins.csv': `check_in_id,user_client_id,location_type,location_id,center,display_value\n${rows.join('\n')}\n`,
      'ca.yaml': jobYaml(
        'ca',
        '  - { mapping: users, source: { csv: ./ca-users.csv } }\n' +
          '  - { mapping: check_ins, source: { csv: ./ca-check_ins.csv } }\n',
      ),
    });
  });

  afterAll(async () => {
    await workspace?.close();
  });

  it('refuses a known conference by another name, or syncs it as that one on request', async () => {
    const first = await workspace.run(sandbox, ['run', 'ca.yaml'], {
      EVSYNC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
    });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`"msg":"conference 127.0.0.1:${port}"`);
    expect(checkInPosts()).toBe(CHECK_INS);

    const other = await workspace.run(sandbox, ['run', 'ca.yaml'], {
      EVSYNC_BASE_URL: `http://localhost:${port}`,
    });
    // Before: exit 0, and every check-in posted a second time.
    expect(checkInPosts()).toBe(CHECK_INS);
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toContain(
      `localhost:${port} is new to this ledger, but it answers as 127.0.0.1:${port}`,
    );
    expect(other.stderr).toContain('--same-conference');
    expect(checkInPosts()).toBe(CHECK_INS);

    const adopted = await workspace.run(sandbox, ['run', 'ca.yaml', '--same-conference'], {
      EVSYNC_BASE_URL: `http://localhost:${port}`,
      LOG_LEVEL: 'info',
    });
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(adopted.stderr).toContain(`"msg":"conference 127.0.0.1:${port} (reached at localhost:${port})"`);
    process.stdout.write(
      `conference by another name: ${checkInPosts()} check-in POSTs for ${CHECK_INS} check-ins, ` +
        `${sandbox.state.checkIns.size} on the platform\n`,
    );
    expect(checkInPosts()).toBe(CHECK_INS);
    expect(sandbox.state.checkIns.size).toBe(CHECK_INS);

    // The retry and the resume its summary prints finish that run from the same URL: they
    // were refused, naming a --same-conference that neither command has.
    for (const command of ['retry', 'resume']) {
      const again = await workspace.run(sandbox, [command, 'latest'], {
        EVSYNC_BASE_URL: `http://localhost:${port}`,
        LOG_LEVEL: 'info',
      });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toContain('is new to this ledger');
      expect(again.stderr).toContain(`the run names it: localhost:${port} is synced as 127.0.0.1:${port}`);
    }
    expect(checkInPosts()).toBe(CHECK_INS);
  });

  it('takes a really new conference with the same ids and client_ids as new', async () => {
    const twin = await workspace.sandbox();
    const run = await workspace.run(twin, ['run', 'ca.yaml'], { LOG_LEVEL: 'info' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`"msg":"conference ${new URL(twin.url).host}"`);
    expect(twin.counters.callsTo('POST', '/check_in')).toBe(CHECK_INS);
  });
});
