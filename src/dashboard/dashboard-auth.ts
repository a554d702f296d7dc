import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { getConnInfo } from '@hono/node-server/conninfo';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import type { LoginThrottle, LoginVerdict, LoginWay } from './login-throttle.js';
import { wantsJson } from './negotiate.js';

/**
 * Who may use the dashboard (docs/dashboard.md, "Login"): a browser session made by
 * logging in with the token, or a script's `Authorization: Bearer TOKEN`. A session is a
 * random id kept in this process only; each has its own CSRF token, which every POST
 * through the cookie must carry.
 */
export const SESSION_COOKIE = 'evsync_session';
export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** Sessions end after this long without a request. @defaultValue 12 hours */
const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;

export interface Session {
  csrf: string;
  lastSeen: number;
}

export type AuthVariables = { session: Session | undefined };

/** The Hono environment of the dashboard's routes: who is asking. */
export type DashboardEnv = { Variables: AuthVariables };

export class DashboardAuth {
  private readonly sessions = new Map<string, Session>();
  private readonly tokenDigest: Buffer;

  constructor(
    token: string,
    private readonly throttle: LoginThrottle,
    private readonly addressOf: (c: Context) => string = clientAddress,
  ) {
    this.tokenDigest = digest(token);
  }

  /**
   * Every way a token comes in goes through here: compared unless the client's address (or
   * everyone) is locked out, a wrong one answered only when the throttle lets it.
   */
  signIn(c: Context, way: LoginWay, candidate: string | undefined): Promise<LoginVerdict> {
    return this.throttle.check(this.addressOf(c), way, () => this.tokenMatches(candidate));
  }

  /** Compared digest to digest: equal lengths for `timingSafeEqual`, whatever was sent. */
  tokenMatches(candidate: string | undefined): boolean {
    return (
      candidate !== undefined && candidate !== '' && timingSafeEqual(digest(candidate), this.tokenDigest)
    );
  }

  /** A new session, its cookie set on the answer. */
  login(c: Context): Session {
    const id = randomBytes(32).toString('base64url');
    const session = { csrf: randomBytes(32).toString('base64url'), lastSeen: Date.now() };
    this.sessions.set(id, session);
    setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: 'Strict', path: '/' });
    return session;
  }

  logout(c: Context): void {
    const id = getCookie(c, SESSION_COOKIE);
    if (id !== undefined) this.sessions.delete(id);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
  }

  sessionOf(c: Context): Session | undefined {
    const id = getCookie(c, SESSION_COOKIE);
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    const now = Date.now();
    if (now - session.lastSeen > SESSION_IDLE_MS) {
      this.sessions.delete(id);
      return undefined;
    }
    session.lastSeen = now;
    return session;
  }

  /**
   * Lets a request through with a valid Bearer token or session; a POST through a session
   * also needs its CSRF token (form field or header). Otherwise 401 (JSON, event streams)
   * or a redirect to the login form (pages), and 403 for a missing CSRF token.
   */
  middleware(): MiddlewareHandler<{ Variables: AuthVariables }> {
    return async (c, next) => {
      const bearer = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
      if (bearer !== undefined) {
        const verdict = await this.signIn(c, 'bearer', bearer);
        if (verdict.outcome === 'locked') return lockedOut(c, verdict.retryAfterSeconds);
        if (verdict.outcome === 'wrong') return refuse(c);
        c.set('session', undefined);
        return next();
      }
      const session = this.sessionOf(c);
      if (session === undefined) return refuse(c);
      c.set('session', session);
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !boardCallOfThisPage(c)) {
        const sent = c.req.header(CSRF_HEADER) ?? (await formField(c, CSRF_FIELD));
        if (sent === undefined || !sameText(sent, session.csrf)) {
          return c.json(
            {
              error: {
                code: CODE.EVSYNC_DASHBOARD_CSRF,
                message: 'This action needs the CSRF token of your session: reload the page and try again.',
              },
            },
            403,
          );
        }
      }
      return next();
    };
  }
}

/** The answer while the throttle refuses to compare tokens: the same for a right and a wrong one. */
export function lockedOut(c: Context, retryAfterSeconds: number): Response {
  c.header('Retry-After', String(retryAfterSeconds));
  return c.json(
    {
      error: {
        code: CODE.EVSYNC_DASHBOARD_LOCKED,
        message: `Too many wrong tokens: try again in ${retryAfterSeconds} s.`,
      },
    },
    429,
  );
}

/**
 * The address a request came from: the socket's peer. A proxy in front makes every client
 * one address, so its lockouts lock everyone behind it out together.
 */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // `app.request` in tests: no socket.
    return 'local';
  }
}

/**
 * Bull Board's own page calls its API without our CSRF token. A browser marks such a call
 * `Sec-Fetch-Site: same-origin`, which no other site's page can send (and the session
 * cookie is `SameSite=Strict` besides); its actions are off unless `--queue-actions`.
 */
function boardCallOfThisPage(c: Context): boolean {
  return c.req.path.startsWith('/queues/api/') && c.req.header('sec-fetch-site') === 'same-origin';
}

function refuse(c: Context): Response {
  const accept = c.req.header('accept') ?? '';
  if (wantsJson(c) || accept.includes('text/event-stream') || c.req.method !== 'GET') {
    return c.json(
      {
        error: {
          code: CODE.EVSYNC_DASHBOARD_LOGIN,
          message: 'Log in first, or send Authorization: Bearer TOKEN.',
        },
      },
      401,
    );
  }
  const url = new URL(c.req.url);
  return c.redirect(`/login?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
}

/** A field of a urlencoded or multipart form, or of a JSON body; the body stays readable after. */
export async function formField(c: Context, name: string): Promise<string | undefined> {
  const type = c.req.header('content-type') ?? '';
  if (type.includes('application/json')) {
    const body: unknown = await c.req.json().catch(() => undefined);
    const value =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' ? value : undefined;
  }
  if (type.includes('form')) {
    const value = (await c.req.parseBody())[name];
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

function sameText(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * A path to go back to after login: only a path of this dashboard. `next` is parsed as a URL
 * against the dashboard's own origin, as a browser would read it (which drops tabs, so
 * `/\t/host` is `//host`, another host), and kept only when its origin is the same; the
 * path sent on is the parsed one. A line break or NUL cannot go into a header: a 400.
 */
export function safeNext(next: string | undefined, origin: string): string {
  if (next === undefined || next === '') return DEFAULT_NEXT;
  if (/[\r\n\0]/.test(next)) {
    throw new ConfigError('next: a path of this dashboard, without line breaks or NUL', {
      code: CODE.EVSYNC_USAGE,
    });
  }
  if (!next.startsWith('/')) return DEFAULT_NEXT;
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return DEFAULT_NEXT;
  }
  if (url.origin !== new URL(origin).origin) return DEFAULT_NEXT;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // `/.//host` parses to the path `//host`: as a Location, another host again.
  return /^\/(?![/\\])/.test(path) ? path : DEFAULT_NEXT;
}

const DEFAULT_NEXT = '/runs';
