import { createHmac } from 'node:crypto';
import { personKey } from './person.js';

/**
 * What an erasure is keyed by (docs/privacy.md, "Tombstones"): a person's e-mail and every
 * client_id they had, each hashed with the ledger's erasure key, so that a tombstone
 * recognises the person in a later export without keeping who they were in clear.
 */
export type ErasedIdentifier = { kind: 'email' | 'client_id'; value: string };

/**
 * HMAC-SHA256 (hex) of the identifier as compared: an e-mail trimmed and lower-cased as the
 * platform compares it (`personKey`), a client_id as written. `undefined` for an empty one.
 */
export function erasureHash(key: Buffer, identifier: ErasedIdentifier): string | undefined {
  const value =
    identifier.kind === 'email' ? personKey(identifier.value) : identifier.value.trim() || undefined;
  if (value === undefined) return undefined;
  return createHmac('sha256', key).update(`${identifier.kind}\u0000${value}`).digest('hex');
}

/**
 * What stands in the ledger for a key of an erased person (a user's client_id, a link's
 * key): `erased:` and 16 hex digits of its keyed hash. One key always gets the same marker,
 * so a run's planned rows and results still pair up, and two keys never share one.
 */
export function erasureMarker(key: Buffer, kind: string, ledgerKey: string): string {
  const hash = createHmac('sha256', key).update(`key\u0000${kind}\u0000${ledgerKey}`).digest('hex');
  return `erased:${hash.slice(0, 16)}`;
}

/** Whether a ledger key is an erasure's marker. */
export function isErasureMarker(ledgerKey: string): boolean {
  return ledgerKey.startsWith('erased:');
}
