import { describe, expect, it } from 'vitest';
import { classifyTransportError } from './http-transport.js';
import {
  OutcomeUnknownError,
  PLATFORM_ERROR_CODES,
  PlatformHttpError,
  PlatformUnreachableError,
  RateLimitedError,
} from './platform-error.js';
import { classifyResponse, parseRetryAfter, readErrorBody } from './response-classifier.js';

const site = { method: 'POST', path: '/user' };
const reply = (status: number, body = '', headers: Record<string, string> = {}) => ({
  status,
  body,
  headers,
});

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('classifyResponse', () => {
  it('passes 200 and 203 through', () => {
    expect(classifyResponse(reply(200, '{}'), site).status).toBe(200);
    expect(classifyResponse(reply(203, '{}'), site).status).toBe(203);
  });

  it.each([
    [400, PLATFORM_ERROR_CODES.badRequest, false],
    [401, PLATFORM_ERROR_CODES.unauthorized, false],
    [403, PLATFORM_ERROR_CODES.forbidden, false],
    [404, PLATFORM_ERROR_CODES.notFound, false],
    [405, PLATFORM_ERROR_CODES.methodNotAllowed, false],
    [406, PLATFORM_ERROR_CODES.notAcceptable, false],
    [409, PLATFORM_ERROR_CODES.otherStatus, false],
    [422, PLATFORM_ERROR_CODES.invalid, false],
    [429, PLATFORM_ERROR_CODES.rateLimited, true],
    [500, PLATFORM_ERROR_CODES.server, true],
    [502, PLATFORM_ERROR_CODES.server, true],
    [503, PLATFORM_ERROR_CODES.server, true],
  ])('%i → %s, retryable %s', (status, code, retryable) => {
    const error = caught(() =>
      classifyResponse(reply(status, '{"error":"nope"}'), site),
    ) as PlatformHttpError;
    expect(error).toBeInstanceOf(PlatformHttpError);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.platformMessage).toBe('nope');
    expect(error.message).toContain('POST /user answered');
  });

  it('keeps the per-param errors of a 422 and names them in the message', () => {
    const body = JSON.stringify({
      error: 'Validation failed',
      errors: { 'user[first_name]': ['is too long'], 'user[last_name]': "can't be blank" },
    });
    const error = caught(() => classifyResponse(reply(422, body), site)) as PlatformHttpError;
    expect(error.paramErrors).toEqual({
      'user[first_name]': ['is too long'],
      'user[last_name]': ["can't be blank"],
    });
    expect(error.message).toContain('user[first_name] is too long');
  });

  it('names per-param errors once when the platform message is made of them', () => {
    const taken = 'user[svc_auth_attributes][email] has already been taken';
    const body = JSON.stringify({
      error: taken,
      errors: { 'user[svc_auth_attributes][email]': ['has already been taken'] },
    });
    const error = caught(() => classifyResponse(reply(422, body), site)) as PlatformHttpError;
    expect(error.message.split(taken)).toHaveLength(2);
    expect(error.message).toMatch(/the platform refused the data: correct what it names$/);
  });

  it('tolerates HTML, empty and odd error bodies', () => {
    expect(readErrorBody('<html>oops</html>')).toEqual({ platformMessage: undefined, paramErrors: {} });
    expect(readErrorBody('')).toEqual({ platformMessage: undefined, paramErrors: {} });
    expect(readErrorBody('{"errors":["bad"]}')).toEqual({
      platformMessage: undefined,
      paramErrors: { base: ['bad'] },
    });
    expect(readErrorBody('[1,2]').platformMessage).toBeUndefined();
  });

  it('a redirect names where it went, without the query (it may echo sig)', () => {
    const location =
      'https://myconf.example.com/user?format=json&key_id=7&sig=0123456789abcdef0123456789abcdef';
    const error = caught(() => classifyResponse(reply(301, '', { location }), site)) as PlatformHttpError;
    expect(error.code).toBe(PLATFORM_ERROR_CODES.otherStatus);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('redirected to https://myconf.example.com/user');
    expect(error.message).toContain('check EVSYNC_BASE_URL');
    expect(error.message).not.toContain('sig=');
    const relative = caught(() =>
      classifyResponse(reply(302, '', { location: '/login?next=x' }), site),
    ) as Error;
    expect(relative.message).toContain('redirected to /login');
  });

  it('a 429 carries Retry-After in ms', () => {
    const error = caught(() =>
      classifyResponse(reply(429, '', { 'retry-after': '3' }), site),
    ) as RateLimitedError;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfterMs).toBe(3000);
    const none = caught(() => classifyResponse(reply(429), site)) as RateLimitedError;
    expect(none.retryAfterMs).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  const now = () => Date.parse('2026-11-22T01:00:00Z');
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter('Sun, 22 Nov 2026 01:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 00:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('classifyTransportError', () => {
  const withCode = (code: string) => Object.assign(new Error('boom'), { code });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH'])(
    '%s: never sent, so unreachable and safe to resend',
    (code) => {
      const error = classifyTransportError(withCode(code), site);
      expect(error).toBeInstanceOf(PlatformUnreachableError);
      expect(error.code).toBe(PLATFORM_ERROR_CODES.unreachable);
      expect(error.retryable).toBe(true);
    },
  );

  it.each(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])(
    '%s: maybe applied, so outcome unknown',
    (code) => {
      const error = classifyTransportError(withCode(code), site);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect(error.code).toBe(PLATFORM_ERROR_CODES.outcomeUnknown);
      expect(error.message).toMatch(/look the object up/);
    },
  );

  it('a failure after the status line is an unknown outcome even with a connect-type code', () => {
    const error = classifyTransportError(withCode('ECONNREFUSED'), site, 200) as OutcomeUnknownError;
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.status).toBe(200);
  });

  it('finds the code on a cause and treats codeless errors as unknown outcomes', () => {
    const wrapped = new Error('outer', { cause: withCode('ECONNREFUSED') });
    expect(classifyTransportError(wrapped, site)).toBeInstanceOf(PlatformUnreachableError);
    expect(classifyTransportError(new Error('???'), site)).toBeInstanceOf(OutcomeUnknownError);
  });
});

describe('a lost answer', () => {
  it('tells to look a POST up before sending it again, and that a PUT or DELETE is safe to send again', () => {
    const lost = (method: string) =>
      new OutcomeUnknownError({ method, path: '/user/member/1' }, 'socket closed').message;
    expect(lost('POST')).toMatch(/look the object up before sending it again$/);
    for (const method of ['PUT', 'DELETE']) {
      expect(lost(method)).toMatch(/sending it again is safe/);
      expect(lost(method)).not.toContain('look the object up');
    }
  });
});
