import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusDocument } from '../../src/cli/commands/status.js';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

const PASSWORD = 'smtp-secret-5b4a3c2d';

/**
 * The smallest SMTP server that takes a login and a message and offers no STARTTLS (it
 * refuses the command): everything a client sends it is kept, to see what went in clear.
 */
async function startPlainSmtp(): Promise<{ port: number; seen(): string; close(): Promise<void> }> {
  let seen = '';
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = '';
    let inData = false;
    let awaitingLogin = 0;
    socket.write('220 tiny ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      buffer += chunk.toString('latin1');
      let end: number;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            socket.write('250 2.0.0 queued\r\n');
          }
          continue;
        }
        if (awaitingLogin > 0) {
          awaitingLogin--;
          socket.write(awaitingLogin > 0 ? '334 UGFzc3dvcmQ6\r\n' : '235 2.7.0 ok\r\n');
          continue;
        }
        const verb = line.split(' ')[0]!.toUpperCase();
        if (verb === 'EHLO') socket.write('250-tiny\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n');
        else if (verb === 'HELO') socket.write('250 tiny\r\n');
        else if (verb === 'STARTTLS') socket.write('502 5.5.1 STARTTLS not offered\r\n');
        else if (verb === 'AUTH') {
          const parts = line.split(' ');
          if (parts[1]?.toUpperCase() === 'LOGIN') {
            awaitingLogin = parts[2] ? 1 : 2;
            socket.write(parts[2] ? '334 UGFzc3dvcmQ6\r\n' : '334 VXNlcm5hbWU6\r\n');
          } else if (parts[2]) socket.write('235 2.7.0 ok\r\n');
          else {
            awaitingLogin = 1;
            socket.write('334 \r\n');
          }
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go on\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen: () => seen,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const job = (name: string, optOut: boolean): string => `name: ${name}
steps:
  - mapping: users
    source: { csv: ./people.csv }
notify:
  channels:
    - email: { smtp_url_env: OPS_SMTP_URL, from: evsync@example.org, to: ops@example.org${optOut ? ', allow_login_without_tls: true' : ''} }
  when:
    failed_rows: 1
`;
const CSV = 'client_id,email,first_name,last_name\np1,p1@example.org,Ann,One\np2,not-an-email,Bob,Two\n';

// Issue #41 point 9: an smtp:// server that offers no STARTTLS got the login (AUTH PLAIN)
// unencrypted. evsync now requires TLS before it logs in, unless the channel says
// `allow_login_without_tls: true`; doctor says which.
describe('an SMTP server without STARTTLS (built CLI)', { timeout: 120_000 }, () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  let smtp: Awaited<ReturnType<typeof startPlainSmtp>>;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    workspace = cliWorkspace('evsync-smtp-tls-');
    sandbox = await workspace.sandbox();
    smtp = await startPlainSmtp();
    env = { OPS_SMTP_URL: `smtp://ops:${PASSWORD}@127.0.0.1:${smtp.port}` };
    workspace.write({ 'strict.yaml': job('strict', false), 'lax.yaml': job('lax', true), 'people.csv': CSV });
  });

  afterAll(async () => {
    await smtp?.close();
    await workspace?.close();
  });

  it('does not log in, and records the message undelivered with why', async () => {
    const run = await workspace.run(sandbox, ['run', 'strict.yaml'], env);
    expect(run.code, run.stderr).toBe(1);
    expect(smtp.seen()).toContain('STARTTLS');
    expect(smtp.seen()).not.toMatch(/^AUTH/m);
    expect(smtp.seen()).not.toContain(Buffer.from(`\u0000ops\u0000${PASSWORD}`).toString('base64'));
    expect(smtp.seen()).not.toContain(PASSWORD);
    const status = await workspace.run(sandbox, ['status', '--json'], env);
    const strict = (JSON.parse(status.stdout) as StatusDocument).syncJobs.find((j) => j.job === 'strict')!;
    expect(strict.notify?.undelivered).toEqual([
      expect.objectContaining({
        channel: 'email to ops@example.org',
        attempts: 1,
        error: expect.stringContaining('offers no STARTTLS, so evsync did not log in'),
      }),
    ]);
    expect(status.stdout).not.toContain(PASSWORD);
  });

  it('doctor fails the channel, and warns where the job allows a login without TLS', async () => {
    const strict = await workspace.run(sandbox, ['doctor', 'strict.yaml', '--json'], env);
    expect(strict.code).toBe(2);
    const checks = (
      JSON.parse(strict.stdout) as { checks: Array<{ check: string; status: string; message: string }> }
    ).checks;
    expect(checks.find((c) => c.check === 'notify email to ops@example.org')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('offers no STARTTLS'),
    });
    const lax = await workspace.run(sandbox, ['doctor', 'lax.yaml', '--json'], env);
    const laxChecks = (JSON.parse(lax.stdout) as { checks: Array<{ check: string; status: string }> }).checks;
    expect(laxChecks.find((c) => c.check === 'notify email to ops@example.org')?.status).toBe('warn');
    expect(strict.stdout + lax.stdout).not.toContain(PASSWORD);
  });

  it('doctor says whether each webhook answers', async () => {
    workspace.write({
      'hooks.yaml': `name: hooks
steps:
  - mapping: users
    source: { csv: ./people.csv }
notify:
  channels:
    - webhook: { url_env: UP_HOOK_URL }
    - webhook: { url_env: DOWN_HOOK_URL }
    - webhook: { url_env: UNSET_HOOK_URL }
`,
    });
    const doctor = await workspace.run(sandbox, ['doctor', 'hooks.yaml', '--json'], {
      // Any HTTP answer is a receiver that is up; port 9 (discard) is one fetch never calls.
      UP_HOOK_URL: `${sandbox.url}/hooks/T0KEN`,
      DOWN_HOOK_URL: 'http://127.0.0.1:9/hooks/T0KEN',
    });
    const checks = (JSON.parse(doctor.stdout) as { checks: Array<{ check: string; status: string }> }).checks
      .filter((c) => c.check.startsWith('notify'))
      .map((c) => [c.check, c.status]);
    expect(checks).toEqual([
      [`notify webhook ${new URL(sandbox.url).origin}`, 'ok'],
      ['notify webhook http://127.0.0.1:9', 'fail'],
      ['notify webhook (UNSET_HOOK_URL not set)', 'fail'],
    ]);
    expect(doctor.stdout).not.toContain('T0KEN');
  });

  it('logs in without TLS only when the channel says so', async () => {
    const before = smtp.seen().length;
    const run = await workspace.run(sandbox, ['run', 'lax.yaml'], env);
    expect(run.code, run.stderr).toBe(1);
    expect(smtp.seen().slice(before)).toMatch(/^AUTH PLAIN/m);
    expect(smtp.seen().slice(before)).toContain('Subject: [evsync] lax');
  });
});
