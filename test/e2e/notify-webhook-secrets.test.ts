import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusDocument } from '../../src/cli/commands/status.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, startBuiltDashboard, type CliWorkspace } from '../helpers/built-cli.js';

const USER = 'hookuser';
const PASSWORD = 'HOOKPASSWORD';
/** What must never be shown: an incoming webhook's secret path, its query token and its login. */
const SECRETS = [USER, PASSWORD, 'SECRETPATHTOKEN', 'QUERYSECRET'];
const PATH = '/services/T000/B000/SECRETPATHTOKEN?token=QUERYSECRET';
const hookUrl = (port: number): string => `http://${USER}:${PASSWORD}@127.0.0.1:${port}${PATH}`;
const DASHBOARD_TOKEN = 'dashboard-token-0123456789abcdef';

const job = (name: string, urlEnv: string): string => `name: ${name}
steps:
  - mapping: users
    source: { csv: ./people.csv }
notify:
  channels:
    - webhook: { url_env: ${urlEnv} }
  when:
    failed_rows: 1
  retry: { attempts: 1, backoff: 1s, deadline: 10s }
`;
/** One row is no e-mail: it fails, and `failed_rows: 1` has the job's channel told. */
const CSV = 'client_id,email,first_name,last_name\np1,p1@example.org,Ann,One\np2,not-an-email,Bob,Two\n';

// A tester's find: a Slack-style webhook URL with a login was shown as
// `http://hookuser:[redacted]@…/services/T000/B000/SECRETPATHTOKEN?token=[redacted]` by the
// log, `status`, the dashboard and `doctor`, and never delivered: fetch takes no login in a URL.
describe('a webhook URL with a login and secrets in its path (built CLI)', { timeout: 180_000 }, () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let hook: Server;
  let port: number;
  let closedPort: number;
  const received: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
  const env = (): NodeJS.ProcessEnv => ({
    HOOK_URL: hookUrl(port),
    // Nothing listens there: the delivery fails, and is recorded with why.
    DOWN_HOOK_URL: hookUrl(closedPort),
    // The tester's URL: a port fetch never connects to.
    BLOCKED_HOOK_URL: hookUrl(1),
    BAD_HOOK_URL: `127.0.0.1:${port}${PATH}`,
  });
  const shown: string[] = [];
  const expectNoSecret = (text: string): void => {
    shown.push(text);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  };

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-hook-secrets-');
    sandbox = await workspace.sandbox();
    // A receiver behind HTTP Basic auth, as a reverse proxy in front of one would be.
    const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    hook = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body,
        });
        response.writeHead(request.headers.authorization === expected ? 204 : 401).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    port = (hook.address() as AddressInfo).port;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    workspace.write({
      'people.yaml': job('people', 'HOOK_URL'),
      'down.yaml': job('down', 'DOWN_HOOK_URL'),
      'bad.yaml': job('bad', 'BAD_HOOK_URL'),
      'blocked.yaml': job('blocked', 'BLOCKED_HOOK_URL'),
      'people.csv': CSV,
    });
  });

  afterAll(async () => {
    await new Promise((resolve) => hook?.close(resolve));
    await workspace?.close();
  });

  it('delivers with the login as an Authorization: Basic header, the URL without it', async () => {
    const run = await workspace.run(sandbox, ['run', 'people.yaml'], env());
    expect(run.code, run.stderr).toBe(1);
    expectNoSecret(run.stdout + run.stderr);
    const posts = received.filter((request) => request.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
    );
    expect(posts[0]!.url).toBe(PATH);
    expect(JSON.parse(posts[0]!.body)).toMatchObject({ event: 'problem', job: 'people' });
  });

  it('names an unreachable webhook by its origin in the log, status and status --json', async () => {
    const run = await workspace.run(sandbox, ['run', 'down.yaml'], env());
    expect(run.code, run.stderr).toBe(1);
    expectNoSecret(run.stdout + run.stderr);
    expect(run.stderr).toContain(`"channel":"webhook http://127.0.0.1:${closedPort}"`);
    expect(run.stderr).toContain(`the webhook at http://127.0.0.1:${closedPort} could not be reached`);

    const status = await workspace.run(sandbox, ['status'], env());
    expectNoSecret(status.stdout + status.stderr);
    expect(status.stdout).toContain(
      `down: a problem message was NOT delivered (webhook http://127.0.0.1:${closedPort}`,
    );

    const json = await workspace.run(sandbox, ['status', '--json'], env());
    expectNoSecret(json.stdout + json.stderr);
    const jobs = (JSON.parse(json.stdout) as StatusDocument).syncJobs;
    expect(jobs.find((j) => j.job === 'people')!.notify?.undelivered).toEqual([]);
    expect(jobs.find((j) => j.job === 'down')!.notify?.undelivered).toEqual([
      expect.objectContaining({
        channel: `webhook http://127.0.0.1:${closedPort}`,
        error: expect.stringMatching(
          new RegExp(
            `^the webhook at http://127\\.0\\.0\\.1:${closedPort} could not be reached .*check DOWN_HOOK_URL`,
          ),
        ),
      }),
    ]);
  });

  // Rows an older evsync recorded (before webhooks were named by origin) kept the path in
  // their error, `redactUrl` having hidden only the login and the token query; such an
  // evsync may share the ledger still. Read by origin, as new rows are written.
  it('shows a delivery an older evsync recorded with the URL’s path by origin', async () => {
    const old = `Request cannot be constructed from a URL that includes credentials: http://${USER}:[redacted]@127.0.0.1:${closedPort}${PATH.replace('QUERYSECRET', '[redacted]')}`;
    const ledger = await openLedger({ dataDir: join(workspace.dir, 'data') });
    try {
      const notices = ledger.forConference((await ledger.findConference(sandbox.url))!).notices();
      const id = await notices.addDelivery({
        jobName: 'down',
        runId: null,
        event: 'problem',
        channel: `webhook 127.0.0.1:${closedPort}`,
      });
      await notices.finishDelivery(id, { status: 'failed', attempts: 1, error: old });
    } finally {
      await ledger.close();
    }
    const shown = `Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:${closedPort}`;
    const status = await workspace.run(sandbox, ['status'], env());
    expectNoSecret(status.stdout + status.stderr);
    expect(status.stdout).toContain(shown);
    const json = await workspace.run(sandbox, ['status', '--json'], env());
    expectNoSecret(json.stdout + json.stderr);
    const down = (JSON.parse(json.stdout) as StatusDocument).syncJobs.find((j) => j.job === 'down');
    expect(down?.notify?.undelivered).toEqual([expect.objectContaining({ error: shown })]);
  });

  it('shows the dashboard without the secrets', async () => {
    const dashboard = await startBuiltDashboard({
      cwd: workspace.dir,
      env: { ...workspace.envFor(sandbox), ...env(), EVSYNC_DASHBOARD_TOKEN: DASHBOARD_TOKEN },
    });
    try {
      const page = await fetch(`${dashboard.base}/runs`, {
        headers: { authorization: `Bearer ${DASHBOARD_TOKEN}` },
      });
      expect(page.status).toBe(200);
      const html = await page.text();
      // The newest delivery of `down` is the one the older evsync recorded, read by origin.
      expect(html).toContain(`webhook 127.0.0.1:${closedPort}`);
      expect(html).toContain(`includes credentials: http://127.0.0.1:${closedPort}`);
      expectNoSecret(html);
      expectNoSecret(dashboard.stderr());
    } finally {
      await dashboard.stop();
    }
  });

  it('has doctor check each webhook without showing its secrets', async () => {
    const people = await workspace.run(sandbox, ['doctor', 'people.yaml'], env());
    expectNoSecret(people.stdout + people.stderr);
    expect(people.stdout).toMatch(
      new RegExp(`ok +notify webhook http://127\\.0\\.0\\.1:${port} +answers \\(HTTP 204`),
    );
    // doctor asks with a HEAD, with the login: nobody is told anything.
    expect(received.at(-1)).toMatchObject({ method: 'HEAD', url: PATH });
    expect(received.at(-1)!.headers.authorization).toMatch(/^Basic /);

    const down = await workspace.run(sandbox, ['doctor', 'down.yaml'], env());
    expectNoSecret(down.stdout + down.stderr);
    expect(down.stdout).toMatch(
      new RegExp(`FAIL +notify webhook http://127\\.0\\.0\\.1:${closedPort} +does not answer`),
    );

    const blocked = await workspace.run(sandbox, ['doctor', 'blocked.yaml'], env());
    expectNoSecret(blocked.stdout + blocked.stderr);
    expect(blocked.stdout).toMatch(
      /FAIL +notify webhook http:\/\/127\.0\.0\.1:1 +evsync cannot make a request of BLOCKED_HOOK_URL.*fetch never connects to port 1/,
    );

    const bad = await workspace.run(sandbox, ['doctor', 'bad.yaml'], env());
    expectNoSecret(bad.stdout + bad.stderr);
    expect(bad.stdout).toMatch(
      /FAIL +notify webhook \(BAD_HOOK_URL is not a URL\) +evsync cannot make a request/,
    );
    expect(bad.stdout).not.toContain('does not answer');
  });

  it('showed something in each place it looked', () => {
    expect(shown.join('\n')).toContain('webhook http://127.0.0.1:');
  });
});
