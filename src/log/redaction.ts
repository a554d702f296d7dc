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

/** A copy of flat params with secret values replaced. */
export function redactParams(params: Record<string, string>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) copy[key] = isSecretName(key) ? REDACTED : value;
  return copy;
}

/** `postgres://user:pw@host/db` → `postgres://user:[redacted]@host/db`; other text untouched. */
export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, `$1${REDACTED}@`);
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
