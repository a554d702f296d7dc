import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../log/logger.js';
import { OutcomeUnknownError, PlatformHttpError } from './platform-error.js';
import type { PlatformResponse } from './platform-request.js';
import type { HttpRequest } from './request-builder.js';
import { DEFAULT_RETRY_POLICY, retrying } from './retry-policy.js';
import { signedSender } from './signed-sender.js';
import { passwordParam } from './vendor.js';

const SIGNING_KEY = 'sk-live-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';

function capture(): { logger: ReturnType<typeof createLogger>; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug' }, stream), text: () => chunks.join('') };
}

describe('secrets stay out of logs and errors', () => {
  it('the logger censors the signing key, sig and password params under any vendor word', () => {
    const { logger, text } = capture();
    logger.info(
      {
        signingKey: SIGNING_KEY,
        sig: 'd41d8cd98f00b204e9800998ecf8427e',
        request: { query: { sig: '0cc175b9c0f1b6a831c399e269772661', key_id: '7' } },
        params: { [passwordParam('zerista')]: PASSWORD, 'user[first_name]': 'Ada' },
        password: PASSWORD,
      },
      'call',
    );
    const out = text();
    expect(out).toContain('Ada');
    expect(out).toContain('"key_id":"7"');
    expect(out).not.toContain(SIGNING_KEY);
    expect(out).not.toContain('d41d8cd98f00b204e9800998ecf8427e');
    expect(out).not.toContain('0cc175b9c0f1b6a831c399e269772661');
    expect(out).not.toContain(PASSWORD);
  });

  it('a call that is retried and fails logs and reports no key, sig or password', async () => {
    const { logger, text } = capture();
    const sent: HttpRequest[] = [];
    const answers: PlatformResponse[] = [
      { status: 503, headers: {}, body: '{"error":"busy"}' },
      {
        status: 422,
        headers: {},
        body: '{"error":"Invalid","errors":{"user[svc_auth_attributes][password]":["is too short"]}}',
      },
    ];
    const transport = {
      send: (http: HttpRequest) => {
        sent.push(http);
        return Promise.resolve(answers.shift() ?? { status: 200, headers: {}, body: '{}' });
      },
    };
    const send = retrying(
      signedSender(transport, { keyId: 7, signingKey: SIGNING_KEY, logger }),
      { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1 },
      { logger },
    );
    const error = await send({
      method: 'POST',
      path: '/user',
      body: { [passwordParam('svc')]: PASSWORD },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlatformHttpError);
    logger.error({ err: error }, 'failed');
    const sig = new URLSearchParams(sent[0]?.target.split('?')[1]).get('sig') ?? '';
    expect(sig).toMatch(/^[0-9a-f]{32}$/);
    const everything = `${text()}\n${(error as Error).message}\n${JSON.stringify(error)}`;
    expect(text()).toContain('platform call retried');
    expect(everything).toContain('is too short');
    for (const secret of [SIGNING_KEY, sig, PASSWORD]) expect(everything).not.toContain(secret);
  });

  it('an unknown-outcome error names method and path only', () => {
    const error = new OutcomeUnknownError({ method: 'POST', path: '/user' }, 'ECONNRESET');
    expect(error.message).toMatch(/^POST \/user: /);
    expect(error.message).not.toContain('?');
  });
});
