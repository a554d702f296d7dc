/**
 * Ledger keys of links (speaker, rsvp, contact) and schedules, made of the client ids they
 * join. A client id may hold any character (spec §1: a caller-chosen string), so each one
 * is written as a *key part*: `%`, `/`, `#` and `:` percent-encoded. A link key is then
 * two parts around its only `/`, and the markers a part may start with — `#123` (a
 * platform id), `email:` (an RSVP's user by e-mail), `user:` / `exhibitor:` (a contact) —
 * can never be read out of a client id. A client id without those four characters is its
 * own key part, so most keys read as plain `<event>/<user>`. See docs/mapping.md, "Keys".
 */

const ENCODE: Readonly<Record<string, string>> = { '%': '%25', '/': '%2F', '#': '%23', ':': '%3A' };
const DECODE: Readonly<Record<string, string>> = { '%25': '%', '%2F': '/', '%23': '#', '%3A': ':' };

/** A client id as one part of a key. */
export function keyPart(clientId: string): string {
  return clientId.replace(/[%/#:]/g, (char) => ENCODE[char] ?? char);
}

/** The client id a key part was made of (the inverse of {@link keyPart}). */
export function clientIdOfPart(part: string): string {
  return part.replace(/%(?:25|2F|23|3A)/gi, (code) => DECODE[code.toUpperCase()] ?? code);
}

/** Two key parts joined into one link key. */
export function linkKey(first: string, second: string): string {
  return `${first}/${second}`;
}

/**
 * Splits a link key into its two parts. Parts never hold a `/`, so it has exactly one;
 * a key without one (a row named by its place) is all first part.
 */
export function splitLinkKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return slash < 0 ? [key, ''] : [key.slice(0, slash), key.slice(slash + 1)];
}

/** How a key part names a user: by platform id (`#123`), e-mail (`email:…`) or client id. */
export type UserPart = { id: string } | { email: string } | { clientId: string };

/** The key part of a user named by client id, platform id or e-mail (the first one given). */
export function userKeyPart(user: {
  clientId?: string | undefined;
  id?: string | undefined;
  email?: string | undefined;
}): string | undefined {
  if (user.clientId) return keyPart(user.clientId);
  if (user.id) return `#${user.id}`;
  if (user.email) return `email:${keyPart(user.email)}`;
  return undefined;
}

/** Reads a user key part back (the inverse of {@link userKeyPart}). */
export function readUserPart(part: string): UserPart {
  if (part.startsWith('#')) return { id: part.slice(1) };
  if (part.startsWith('email:')) return { email: clientIdOfPart(part.slice('email:'.length)) };
  return { clientId: clientIdOfPart(part) };
}
