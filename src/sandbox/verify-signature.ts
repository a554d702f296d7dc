import { timingSafeEqual } from 'node:crypto';
import type { FlatParams } from '../platform/params.js';
import { maskSigningKey, md5Hex, signingStringOf, withoutSignature } from '../platform/signing.js';

export interface SandboxKey {
  keyId: string;
  signingKey: string;
}

export interface SignatureCheck {
  valid: boolean;
  /** Why it is not valid, in words a developer can act on. */
  problem: string | undefined;
  /** What the sandbox hashed, with the signing key masked (built only when asked for). */
  readonly maskedSigningString: string;
}

/**
 * Spec §5 from the server's side: the query params (with `key_id`, without `sig`) and
 * the body params are hashed with the key of that `key_id`.
 */
export function checkSignature(query: FlatParams, body: FlatParams, key: SandboxKey): SignatureCheck {
  const get = withoutSignature(query);
  const signingString = signingStringOf(get, body, key.signingKey);
  const verdict = (valid: boolean, problem: string | undefined): SignatureCheck => ({
    valid,
    problem,
    get maskedSigningString() {
      return maskSigningKey(signingString, key.signingKey);
    },
  });
  const fail = (problem: string): SignatureCheck => verdict(false, problem);
  if (!query.key_id) return fail('The key_id query param is missing.');
  if (query.key_id !== key.keyId) return fail(`Unknown key_id "${query.key_id}".`);
  if (!query.sig) return fail('The sig query param is missing.');
  const expected = Buffer.from(md5Hex(signingString), 'utf8');
  const given = Buffer.from(query.sig.toLowerCase(), 'utf8');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return fail('The signature does not match the request: check the signing key and the params signed.');
  }
  return verdict(true, undefined);
}
