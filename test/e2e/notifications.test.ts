import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusDocument } from '../../src/cli/commands/status.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace, type SpawnedResult } from '../helpers/built-cli.js';
import { startSmtpReceiver, startWebhookReceiver } from '../helpers/notice-receivers.js';

const SECRET = 'webhook-signing-secret-0123456789';
const SMTP_PASSWORD = 'smtp-pass-9f8e7d6c';
const HEADER = 'client_id,email,first_name,last_name\n';
const people = (count: number, bad = 0, name = 'Person'): string =>
  HEADER +
  Array.from({ length: count }, (_, i) => {
    const n = i + 1;
    return `p${n},${n <= bad ? `p${n}@` : `p${n}@example.org`},Ann,${name}${n}\n`;
  }).join('');
/** People as the source has them; an outage run sends them renamed, so that it has calls to make. */
const COUNT = 30;

const JOB = `name: people
steps:
  - mapping: users
    source: { csv: ./people.csv }
notify:
  channels:
    - webhook: { url_env: OPS_HOOK_URL, secret_env: OPS_HOOK_SECRET }
    # The receiver offers no STARTTLS (no certificate): its login goes unencrypted, on loopback.
    - email: { smtp_url_env: OPS_SMTP_URL, from: evsync@example.org, to: ops@example.org, allow_login_without_tls: true }
  when:
    failed_rows: 2
    rows_dropped: "30%"
  retry: { attempts: 2, backoff: 1s }
`;

// Issue #29 item 1 as an operator meets it: the built CLI against a sandbox, a webhook
// receiver that checks the HMAC and a real SMTP server; one message per change of state.
describe('notifications (built CLI, webhook and e-mail)', { timeout: 240_000 }, () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  const run = (): Promise<SpawnedResult> =>
    workspace.run(sandbox, ['run', 'people.yaml'], {
      OPS_HOOK_URL: hook.url,
      OPS_HOOK_SECRET: SECRET,
      OPS_SMTP_URL: smtp.url,
      EVSYNC_DASHBOARD_URL: 'http://dash.example:4680/',
    });
  /** The messages both channels got since the last call: each channel must agree. */
  let seen = 0;
  const newMessages = (): Array<Record<string, unknown>> => {
    const fresh = hook.received.slice(seen);
    expect(smtp.received.length).toBe(hook.received.length);
    seen = hook.received.length;
    return fresh.map((message) => message.body);
  };

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-notify-');
    sandbox = await workspace.sandbox();
    hook = await startWebhookReceiver(SECRET);
    smtp = await startSmtpReceiver('ops', SMTP_PASSWORD);
    workspace.write({ 'people.yaml': JOB, 'people.csv': people(COUNT) });
  });

  afterAll(async () => {
    await hook?.close();
    await smtp?.close();
    await workspace?.close();
  });

  it('tells nothing of a clean run', async () => {
    expect((await run()).code).toBe(0);
    expect(newMessages()).toEqual([]);
  });

  it('tells a run aborted by a platform outage once, not once per failing run', async () => {
    sandbox.faults.set({ error503: { fraction: 1 } });
    workspace.write({ 'people.csv': people(COUNT, 0, 'Renamed') });
    const first = await run();
    expect(first.code).toBe(3);
    const [message] = newMessages();
    expect(message).toMatchObject({ event: 'problem', job: 'people', conference: new URL(sandbox.url).host });
    // Rows the outage failed may pass the failed_rows threshold too: one message says both.
    expect((message!.problems as Array<{ rule: string }>).map((p) => p.rule)).toContain('run_failed');
    expect((message!.run as { status: string }).status).toBe('aborted');
    expect(message!.link).toMatch(/^http:\/\/dash\.example:4680\/runs\//);
    expect(hook.received.at(-1)!.signed).toBe(true);
    const mail = smtp.received.at(-1)!.text;
    // The subject names the conference and the cause; the body leads with what to do (issue #40 item 4).
    expect(mail).toContain(`Subject: [evsync] people on ${new URL(sandbox.url).host}: platform failing`);
    expect(mail).toContain('What to do:');
    expect(mail).toContain('Content-Type: text/html');
    expect((await run()).code).toBe(3);
    expect(newMessages()).toEqual([]);
    const aborted = await workspace.run(sandbox, [
      'runs',
      '--job',
      'people',
      '--status',
      'aborted',
      '--json',
    ]);
    const listed = JSON.parse(aborted.stdout) as Array<{ status: string; jobName: string }>;
    expect(listed.map((r) => [r.jobName, r.status])).toEqual([
      ['people', 'aborted'],
      ['people', 'aborted'],
    ]);
    expect((await workspace.run(sandbox, ['runs', '--job', 'nobody'])).stdout).toContain('No run matches');
  });

  it('tells once when the job is back to normal', async () => {
    sandbox.faults.set({});
    expect((await run()).code).toBe(0);
    const [message] = newMessages();
    expect(message).toMatchObject({ event: 'recovered', job: 'people' });
    expect(newMessages()).toEqual([]);
  });

  it('tells failed rows at or over the threshold, then the return', async () => {
    workspace.write({ 'people.csv': people(COUNT, 3) });
    expect((await run()).code).toBe(1);
    const [message] = newMessages();
    expect((message!.problems as Array<{ rule: string }>).map((p) => p.rule)).toEqual(['failed_rows']);
    expect((message!.errors as Array<{ code: string; meaning: string }>)[0]).toMatchObject({
      code: 'INVALID_EMAIL',
      meaning: 'A value is not an e-mail address.',
    });
    expect((await run()).code).toBe(1);
    expect(newMessages()).toEqual([]);
    workspace.write({ 'people.csv': people(COUNT) });
    expect((await run()).code).toBe(0);
    expect(newMessages().map((m) => m.event)).toEqual(['recovered']);
  });

  it('tells a source that shrank by more than the threshold', async () => {
    workspace.write({ 'people.csv': people(18) });
    expect((await run()).code).toBe(0);
    const [message] = newMessages();
    expect((message!.problems as Array<{ rule: string; text: string }>)[0]).toMatchObject({
      rule: 'rows_dropped',
      text: expect.stringContaining('40.0% fewer than the 30'),
    });
    workspace.write({ 'people.csv': people(COUNT) });
    expect((await run()).code).toBe(0);
    expect(newMessages().map((m) => m.event)).toEqual(['recovered']);
  });

  it('never lets a secret reach the messages, the ledger listing or the output', async () => {
    const runs = await workspace.run(sandbox, ['runs', '--json']);
    const status = await workspace.run(sandbox, ['status', '--json']);
    for (const text of [
      runs.stdout,
      status.stdout,
      ...hook.received.map((m) => JSON.stringify(m.body)),
      ...smtp.received.map((m) => m.text),
    ]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(SMTP_PASSWORD);
      expect(text).not.toContain('T0KEN');
    }
  });

  it('records a message it could not deliver, shows it in status, and keeps the exit code', async () => {
    hook.failNext(2);
    sandbox.faults.set({ error503: { fraction: 1 } });
    workspace.write({ 'people.csv': people(COUNT, 0, 'Again') });
    expect((await run()).code).toBe(3);
    sandbox.faults.set({});
    expect(hook.received.length).toBe(seen);
    expect(smtp.received.length).toBe(seen + 1);
    const status = await workspace.run(sandbox, ['status', '--json']);
    const job = (JSON.parse(status.stdout) as StatusDocument).syncJobs.find((j) => j.job === 'people')!;
    expect(job.lastRun?.status).toBe('aborted');
    expect(job.notify?.state).toBe('problem');
    expect(job.notify?.undelivered).toEqual([
      expect.objectContaining({ channel: `webhook ${new URL(hook.url).origin}`, attempts: 2 }),
    ]);
    const text = await workspace.run(sandbox, ['status']);
    expect(text.stdout).toContain('was NOT delivered');
  });
});
