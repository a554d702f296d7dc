/**
 * Secrets never leave the process in clear: the signing key, signatures, passwords and
 * connection URLs with credentials. One list, used by the logger and by anything that
 * stores or shows params (ledger, reports, dashboard, error messages).
 */
export const REDACTED = '[redacted]';

/** Param or field names whose values are secret, matched case-insensitively anywhere in a name. */
const SECRET_NAME = /(password|signing_?key|signingkey|secret|(^|[^a-z])sig($|[^a-z])|authorization|token)/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Flat params with secret values replaced: a copy when a name is secret, else the params
 * themselves (every planned intent and every result is redacted, and few hold a secret:
 * a copy of each was a good part of what a run allocated). Read the answer, never change it.
 */
export function redactParams(params: Record<string, string>): Record<string, string> {
  for (const key in params) {
    if (Object.hasOwn(params, key) && isSecretParam(key)) return redactedCopy(params);
  }
  return params;
}

function redactedCopy(params: Record<string, string>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) copy[key] = isSecretParam(key) ? REDACTED : value;
  return copy;
}

/**
 * `isSecretName` of a param name, remembered: every planned intent and every result is
 * redacted, and their names repeat (a kind's dozen params). Bounded, since names may come
 * from a mapping file's custom fields.
 */
const SECRET_PARAMS = new Map<string, boolean>();
const MAX_SECRET_PARAMS = 2_000;

export function isSecretParam(name: string): boolean {
  let secret = SECRET_PARAMS.get(name);
  if (secret === undefined) {
    secret = isSecretName(name);
    if (SECRET_PARAMS.size >= MAX_SECRET_PARAMS) SECRET_PARAMS.clear();
    SECRET_PARAMS.set(name, secret);
  }
  return secret;
}

/**
 * Query (and fragment) param names whose values are secret: tokens, keys, passwords,
 * signatures, auth and session ids. Matched on the words of a name, split at `-`, `_`, `.`,
 * brackets and camelCase (`x-api-key`, `accessToken`, `X-Amz-Signature`, `PHPSESSID`),
 * case-insensitively. `key_id` is an identifier, not a secret; `author` is not `auth`.
 */
const SECRET_QUERY_WORD =
  /^(.*(tokens?|secrets?|passw(or)?d|passphrase|signature|credentials?|key|sessid)|.*session.*|o?auth(?!or).*|pass(code)?|pwd?|sig|sid)$/;

export function isSecretQueryName(name: string): boolean {
  if (isSecretName(name)) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  return words.some(
    (word, index) => SECRET_QUERY_WORD.test(word) && !(word === 'key' && words[index + 1] === 'id'),
  );
}

/** A URL in free text: up to a space or a quote, so a URL inside JSON or HTML stops at its end. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"<>`]+/gi;
/** Punctuation that ends a sentence rather than the URL (`see http://h/x?token=t.`). */
const TRAILING_PUNCTUATION = /[.,:;!?)']+$/;
/** `?name=value`, `&name=value`, `;name=value` (`;jsessionid=`), `#name=value` (OAuth fragments). */
const URL_PARAM = /([?&;#])([^=&;#?]+)=([^&;#]*)/g;
/**
 * `user:pw@`: the password runs to the last `@` before the query, so an e-mail in the query
 * stays readable; failing that, to the last `@` at all, so a raw `?`, `#` or `@` in a
 * password stays hidden too.
 */
const URL_USERINFO_BEFORE_QUERY = /^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*:)[^?#]*@/i;
const URL_USERINFO_ANYWHERE = /^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*:)[^@]*@/i;
/** `host:8080/…`: a port, not a password, even when an `@` (an e-mail) comes later in the URL. */
const URL_PORT = /^[a-z][a-z0-9+.-]*:\/\/[^:/@?#]*:\d{1,5}([/?#]|$)/i;

/**
 * Every URL in a text with its secrets hidden: the password of `postgres://user:pw@host/db`
 * and the values of query params named like secrets (`?token=`, `&api_key=`, `;jsessionid=`);
 * other params stay readable (`…/sz.json?token=[redacted]&lang=en`). Other text untouched.
 */
export function redactUrl(text: string): string {
  return text.replace(URL_IN_TEXT, (match) => {
    const trailing = TRAILING_PUNCTUATION.exec(match)?.[0] ?? '';
    const url = match.slice(0, match.length - trailing.length);
    return `${redactQueryParams(redactUserinfo(url))}${trailing}`;
  });
}

function redactQueryParams(url: string): string {
  return url.replace(URL_PARAM, (_param: string, separator: string, name: string, text: string) => {
    // A `;name=value` path param ends where the path or the query goes on.
    const [value, rest] = separator === ';' ? splitAtFirst(text, /[/?]/) : [text, ''];
    const secret = value !== '' && value !== REDACTED && isSecretQueryName(decodedName(name));
    return `${separator}${name}=${secret ? REDACTED : value}${rest === '' ? '' : redactQueryParams(rest)}`;
  });
}

function splitAtFirst(text: string, at: RegExp): [string, string] {
  const index = text.search(at);
  return index < 0 ? [text, ''] : [text.slice(0, index), text.slice(index)];
}

function redactUserinfo(url: string): string {
  if (URL_PORT.test(url)) return url;
  const userinfo = URL_USERINFO_BEFORE_QUERY.test(url) ? URL_USERINFO_BEFORE_QUERY : URL_USERINFO_ANYWHERE;
  return url.replace(userinfo, `$1${REDACTED}@`);
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** Scheme, optional `user:password@`, then the host and port: a URL's origin without its login. */
const URL_ORIGIN = /^([a-z][a-z0-9+.-]*:\/\/)(?:[^/?#]*@)?([^/?#@]*)/i;

/**
 * Every URL in a text as its origin alone (`https://hooks.slack.com`): the login, path, query
 * and fragment go, redacted or not (an incoming webhook's secret is its path). How a
 * webhook's address is shown wherever a person reads it: written so since webhooks were named
 * by origin, and read so from rows older evsyncs wrote with more of it (docs/notifications.md).
 */
export function urlsAsOrigins(text: string): string {
  return text.replace(URL_IN_TEXT, (match) => {
    const trailing = TRAILING_PUNCTUATION.exec(match)?.[0] ?? '';
    const origin = URL_ORIGIN.exec(match.slice(0, match.length - trailing.length));
    return origin === null ? match : `${origin[1]}${origin[2]}${trailing}`;
  });
}

/** Replaces every occurrence of the given secret strings (e.g. the signing key) in a text. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = redactUrl(text);
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * pino redact paths: common places where secrets sit in our log objects. Bracketed param
 * names (`user[svc_auth_attributes][password]`) cannot be pino paths (its parser rejects
 * them); the logger's key scrubber censors them by name instead.
 */
export const LOG_REDACT_PATHS = [
  'signingKey',
  '*.signingKey',
  'sig',
  '*.sig',
  'query.sig',
  '*.query.sig',
  'password',
  '*.password',
  'headers.authorization',
  'url',
  '*.url',
  'databaseUrl',
  '*.databaseUrl',
];
