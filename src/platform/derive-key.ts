import { hkdfSync } from 'node:crypto';

/**
 * A key for one purpose of evsync's own, derived from the signing key (HKDF-SHA256, the
 * purpose as its info): it can be recomputed by whoever holds the signing key, and tells
 * nothing about it. The signing key itself never leaves the client.
 */
export function deriveKey(signingKey: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', signingKey, 'evsync', purpose, 32));
}
