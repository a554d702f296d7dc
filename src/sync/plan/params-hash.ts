import { createHmac, hash, randomUUID } from 'node:crypto';
import { isSecretName } from '../../log/redaction.js';
import { sortNames, type FlatParams } from '../../model/params.js';

/** The purpose `SyncPlatform.deriveKey` derives the key of secret-bearing hashes for. */
export const HASH_KEY_PURPOSE = 'evsync ledger change hash v1';

/**
 * Marks a keyed hash (HMAC-SHA256), so that it is never taken for a plain one:
 * `k1:<key fingerprint>:<hmac>`.
 */
const KEYED = 'k1:';

/** Per param name: whether it holds a secret, and the text that comes before its value. */
const nameParts = new Map<string, { secret: boolean; prefix: string }>();

function partsOf(name: string): { secret: boolean; prefix: string } {
  let parts = nameParts.get(name);
  if (parts === undefined) {
    // Length-prefixed so that `a=bc` and `ab=c` can never collide.
    parts = { secret: isSecretName(name), prefix: `\u0000${name.length}:${name}\u0000` };
    // Param names are few (a mapping's columns); the cache stays small.
    if (nameParts.size < 10_000) nameParts.set(name, parts);
  }
  return parts;
}

/**
 * The fingerprint of what an intent asks the platform to hold. Keys are sorted so that the
 * order a mapping emits params in never looks like a change; the op is part of it so that
 * a link turned from "add" into "remove" is sent again.
 *
 * Params with a secret (a password, see `isSecretName`) are hashed with HMAC-SHA256 under
 * `key`, derived from the signing key, which never enters the ledger: the ledger stores
 * the other params in clear beside the hash, and a plain hash would let whoever holds
 * the ledger test password guesses offline. Without a key, such params hash to a value
 * that matches nothing, so they are always sent. Params without a secret keep the plain
 * SHA-256 of earlier versions: nothing in them is hidden, and their stored hashes still
 * match (docs/ledger.md, "Change hashes").
 */
export function hashIntent(
  op: 'upsert' | 'remove',
  params: FlatParams,
  key?: Uint8Array,
  /** A merged user's other client_ids: one more of them is sent, to be added to the user. */
  aliases?: readonly string[],
): string {
  const names = sortNames(Object.keys(params));
  // Only merged users have it, so that every other hash already in a ledger still matches.
  let text: string = aliases?.length ? `${op}\u0000aliases:${[...aliases].sort().join('\u0000')}` : op;
  let secret = false;
  for (const name of names) {
    const value = params[name] ?? '';
    const parts = partsOf(name);
    // The name's part is made once per name: a row's text then costs half the garbage.
    text += parts.prefix + value.length + ':' + value;
    if (parts.secret) secret = true;
  }
  if (secret) {
    if (key === undefined) return `unkeyed:${randomUUID()}`;
    return `${KEYED}${keyFingerprint(key)}:${createHmac('sha256', key).update(text).digest('hex')}`;
  }
  // One-shot hashing of one string: the planner hashes every row of every run, and a Hash
  // object per row with an update per param cost twice as much. The bytes hashed, and so
  // the hashes already in ledgers, are the same.
  return hash('sha256', text, 'hex');
}

/**
 * Eight hex digits that tell one hash key from another (an HMAC of a constant): stored in
 * a keyed hash, they let a resume see that the signing key changed since the plan, and
 * say nothing about the params or the key.
 */
export function keyFingerprint(key: Uint8Array): string {
  return createHmac('sha256', key).update('evsync hash key fingerprint').digest('hex').slice(0, 8);
}

/** The fingerprint of the key a keyed hash was made with, or undefined for another hash. */
export function fingerprintOf(hashed: string): string | undefined {
  return hashed.startsWith(KEYED) ? hashed.slice(KEYED.length, KEYED.length + 8) : undefined;
}
