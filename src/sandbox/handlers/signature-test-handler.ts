import { jsonReply, type Handler } from '../sandbox-request.js';

/**
 * GET, POST and PUT /signature_test (§5): what the sandbox hashed (key masked) and the
 * verdict. It answers 200 either way, since telling the caller is its whole purpose.
 */
export const signatureTest: Handler = (request) =>
  jsonReply(200, {
    signature_valid: request.signature.valid,
    problem: request.signature.problem ?? null,
    expected_signing_string: request.signature.maskedSigningString,
    method: request.method,
  });
