import type { FlatParams } from '../model/params.js';
import { maskSigningKey, md5Hex, signingStringOf, withoutSignature } from '../platform/signing.js';

export interface SandboxKey {
  keyId: string;
  signingKey: string;
}

/**
 * The verdict on one request's signature. The signing string and key sit in `#private`
 * fields, so logging or serialising a verdict can never show them.
 */
export class SignatureCheck {
  readonly #signingString: string;
  readonly #signingKey: string;

  constructor(
    readonly valid: boolean,
    /** Why it is not valid, in words a developer can act on. */
    readonly problem: string | undefined,
    signingString: string,
    signingKey: string,
  ) {
    this.#signingString = signingString;
    this.#signingKey = signingKey;
  }

  /** What the sandbox hashed, with the signing key masked (built only when asked for). */
  get maskedSigningString(): string {
    return maskSigningKey(this.#signingString, this.#signingKey);
  }
}

/**
 * Spec §5 from the server's side: the query params (with `key_id`, without `sig`) and
 * the body params are hashed with the key of that `key_id`.
 */
export function checkSignature(query: FlatParams, body: FlatParams, key: SandboxKey): SignatureCheck {
  const get = withoutSignature(query);
  const signingString = signingStringOf(get, body, key.signingKey);
  const problem = signatureProblem(query, signingString, key);
  return new SignatureCheck(problem === undefined, problem, signingString, key.signingKey);
}

// A plain function rather than a closure per request: this runs on every call.
function signatureProblem(query: FlatParams, signingString: string, key: SandboxKey): string | undefined {
  if (!query.key_id) return 'The key_id query param is missing.';
  if (query.key_id !== key.keyId) return `Unknown key_id "${query.key_id}".`;
  if (!query.sig) return 'The sig query param is missing.';
  if (!sameText(md5Hex(signingString), query.sig.toLowerCase())) {
    return 'The signature does not match the request: check the signing key and the params signed.';
  }
  return undefined;
}

/** Compares in time that does not depend on where the texts differ, without allocating. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
