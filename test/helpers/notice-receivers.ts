import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message a receiver took, with whether its HMAC checked out (webhook) and its text. */
export interface ReceivedNotice {
  /** The webhook's JSON body, or the mail's subject and text. */
  body: Record<string, unknown>;
  text: string;
  signed: boolean;
}

/**
 * A webhook receiver as an operator would write one: a local HTTP server that checks the
 * `X-Evsync-Signature` HMAC of `timestamp.body` with its key. `failNext(n)` answers the next
 * n requests 500.
 */
export async function startWebhookReceiver(secret: string): Promise<{
  url: string;
  received: ReceivedNotice[];
  failNext(count: number): void;
  close(): Promise<void>;
}> {
  const received: ReceivedNotice[] = [];
  let failing = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // `evsync doctor` asks with a HEAD whether the hook answers: no notice.
      if (request.method !== 'POST') {
        response.writeHead(200).end();
        return;
      }
      if (failing > 0) {
        failing--;
        response.writeHead(500).end('down');
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const timestamp = String(request.headers['x-evsync-timestamp'] ?? '');
      const signature = String(request.headers['x-evsync-signature'] ?? '');
      const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
      const signed =
        signature.length === expected.length &&
        timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
      const parsed = JSON.parse(body) as Record<string, unknown>;
      received.push({ body: parsed, text: typeof parsed.text === 'string' ? parsed.text : body, signed });
      response.writeHead(signed ? 204 : 401).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/T0KEN-in-the-path`,
    received,
    failNext: (count) => (failing = count),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A real SMTP server (the `smtp-server` package) that keeps every mail it is given, with a login. */
export async function startSmtpReceiver(
  user: string,
  password: string,
): Promise<{
  url: string;
  received: ReceivedNotice[];
  close(): Promise<void>;
}> {
  const received: ReceivedNotice[] = [];
  const server = new SMTPServer({
    secure: false,
    // No certificate of its own: STARTTLS is not offered, so the login goes in the clear, on loopback.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error('wrong login'));
    },
    onData(stream, _session, callback) {
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/m.exec(text)?.[1] ?? '';
        received.push({ body: { subject }, text, signed: false });
        callback();
      });
    },
    logger: false,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
