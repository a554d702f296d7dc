import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';

const PEOPLE = 'client_id,email,first_name,last_name';

// `--conference` took only the host as `status` shows it: with EVSYNC_BASE_URL's own value
// the build before said `No hold on "TIX-1" in http://127.0.0.1:…: nothing was let go.`, exit 2.
describe('release-hold --conference (built CLI)', () => {
  const ws = cliWorkspace('evsync-release-conference-');
  afterAll(() => ws.close());

  it('names the conference by its base URL, however written, or by the host status shows', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'door.yaml': 'name: door\nmode: upsert\nsteps:\n  - { mapping: users, source: { csv: ./door.csv } }\n',
      'door.csv': [PEOPLE, 'TIX-1,cat@example.org,Cat,Cole', 'TIX-2,eve@example.org,Eve,Ely', ''].join('\n'),
    });
    expect((await ws.run(sandbox, ['run', 'door.yaml'])).code).toBe(0);
    // Both tickets handed on: each refused as now another person, its key held.
    ws.write({
      'door.csv': [PEOPLE, 'TIX-1,dan@example.org,Dan,Dale', 'TIX-2,fay@example.org,Fay,Fox', ''].join('\n'),
    });
    expect((await ws.run(sandbox, ['run', 'door.yaml'])).code).toBe(1);
    const status = await ws.run(sandbox, ['status']);
    const host = /^ {2}user "TIX-2" on (\S+): refused by run/m.exec(status.stdout)?.[1];
    expect(host, status.stdout).toBeDefined();

    const elsewhere = await ws.run(sandbox, ['release-hold', 'TIX-1', '--conference', 'other.example.com']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('No hold on "TIX-1" in other.example.com');

    // EVSYNC_BASE_URL's value, with a trailing slash and the scheme in capitals.
    const byUrl = await ws.run(sandbox, [
      'release-hold',
      'TIX-1',
      '--conference',
      `${sandbox.url.replace(/^http:/, 'HTTP:')}/`,
    ]);
    expect(byUrl.code, byUrl.stdout + byUrl.stderr).toBe(0);
    expect(byUrl.stdout).toMatch(/^Released user "TIX-1" in /);
    const byHost = await ws.run(sandbox, ['release-hold', 'TIX-2', '--conference', host!]);
    expect(byHost.code, byHost.stdout + byHost.stderr).toBe(0);
    expect(byHost.stdout).toMatch(/^Released user "TIX-2" in /);
    expect((await ws.run(sandbox, ['status'])).stdout).not.toContain('Held keys');
  }, 120_000);
});
