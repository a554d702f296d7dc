import { ConfigError, messageOf } from '../../errors/evsync-error.js';
import { redactSecrets, REDACTED, urlsAsOrigins } from '../../log/redaction.js';

/**
 * Where a webhook's messages go, as `fetch` takes them. `fetch` refuses a URL with a login
 * ("Request cannot be constructed from a URL that includes credentials"), so the login of
 * `https://user:password@host/…` becomes an `Authorization: Basic` header and leaves the URL.
 */
export interface WebhookTarget {
  /** The URL to request, without `user:password@`. */
  url: string;
  /** Scheme, host and port: all of the URL a person is ever shown (`https://hooks.slack.com`). */
  origin: string;
  /** `authorization: Basic …` when the URL had a login, else nothing. */
  headers: Record<string, string>;
  /**
   * The address without the origin in words a person reads: incoming-webhook URLs carry their
   * secret in the path (`/services/T…/B…/TOKEN`), others in the query or the login.
   */
  hide(text: string): string;
}

/** Scheme, host and port of a URL (`URL.origin` is `null` for schemes it does not know). */
export function webhookOrigin(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/**
 * The request for the webhook URL held by `urlEnv`. Throws a `ConfigError` (not retryable)
 * when no request can be made of it; the message names the variable, never its value.
 */
export function webhookTarget(urlEnv: string, raw: string): WebhookTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${urlEnv} is not a URL: set it to the webhook's address, https://host/…`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError(
      `${urlEnv} is a ${url.protocol} URL: a webhook's address starts with https:// (or http://)`,
    );
  const origin = webhookOrigin(url);
  const secrets = [raw, url.href, `${url.pathname}${url.search}${url.hash}`, url.search];
  const headers: Record<string, string> = {};
  if (url.username !== '' || url.password !== '') {
    const user = decoded(url.username);
    const password = decoded(url.password);
    const basic = Buffer.from(`${user}:${password}`).toString('base64');
    headers.authorization = `Basic ${basic}`;
    secrets.push(url.username, url.password, user, password, basic);
    url.username = '';
    url.password = '';
    secrets.push(url.href);
  }
  // One pass, longest first: a whole URL goes as one, to its origin, before its parts, and
  // an origin put in is not searched again (a user named `hook` leaves `webhook` alone).
  const hidden = [...new Set(secrets)]
    .filter((secret) => secret.length >= 4)
    .sort((a, b) => b.length - a.length);
  const pattern = new RegExp(
    hidden.map((secret) => secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
    'g',
  );
  // Then any URL left (one fetch spelled otherwise) as its origin, as the ledger reads notices.
  const hide = (text: string): string =>
    redactSecrets(
      urlsAsOrigins(text.replace(pattern, (secret) => (secret.includes('://') ? origin : REDACTED))),
      [],
    );
  return { url: url.href, origin, headers, hide };
}

/** A login as the URL spells it (`p%40ss`), as the receiver expects it (`p@ss`). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Why `fetch` threw for a target, in words without its secrets. */
export interface FetchFailure {
  /** `fetch` made no request: nothing the receiver does can help, only another URL. */
  unsendable: boolean;
  text: string;
}

export function fetchFailure(error: unknown, target: WebhookTarget): FetchFailure {
  // fetch's own message is "fetch failed": the cause says why (refused, timed out…).
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  if (cause?.message === 'bad port')
    return {
      unsendable: true,
      text: `fetch never connects to port ${new URL(target.url).port} (https://fetch.spec.whatwg.org/#port-blocking)`,
    };
  const text = target.hide(cause === undefined ? messageOf(error) : `${messageOf(error)}: ${cause.message}`);
  // A request fetch will not build is a TypeError of its own, without the cause of a network failure.
  const unsendable = error instanceof Error && error.name === 'TypeError' && cause === undefined;
  return { unsendable, text };
}
