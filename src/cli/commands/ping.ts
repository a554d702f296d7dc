import type { Command } from 'commander';
import { platformConfigFromEnv, type PlatformConfig } from '../../config/env-config.js';
import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import { redactSecrets } from '../../log/redaction.js';
import { PlatformClient, type SignatureTestResult } from '../../platform/platform-client.js';
import { maskSigningKey } from '../../platform/signing.js';

interface PingOptions {
  json?: boolean;
}

/** The platform refused the configured key: a configuration problem (exit 2). */
export class SignatureRejectedError extends EvsyncError {
  override readonly name = 'SignatureRejectedError';
  constructor(message: string) {
    super(message, { code: CODE.EVSYNC_PLATFORM_SIGNATURE_REJECTED, retryable: false });
  }
}

export function registerPingCommand(program: Command): void {
  program
    .command('ping')
    .description('Call /signature_test with the configured credentials (EVSYNC_*) and print the verdict.')
    .option('--json', 'print JSON instead of text')
    .action(async (options: PingOptions) => {
      const config = platformConfigFromEnv();
      const { result, ms, expected } = await testSignature(config);
      if (options.json === true) {
        process.stdout.write(
          `${JSON.stringify({ baseUrl: config.baseUrl, keyId: config.keyId, valid: result.valid, problem: result.problem, expectedSigningString: expected, ms })}\n`,
        );
      } else if (result.valid === true) {
        process.stdout.write(`${config.baseUrl}: signature accepted for key_id ${config.keyId} (${ms} ms)\n`);
      } else if (result.valid === undefined) {
        process.stdout.write(
          `${config.baseUrl}: answered ${result.status} in ${ms} ms but gave no verdict:\n${redactSecrets(JSON.stringify(result.body), [config.signingKey])}\n`,
        );
      }
      if (result.valid === false) {
        throw new SignatureRejectedError(
          `${config.baseUrl} rejected the signature of key_id ${config.keyId}` +
            `${result.problem ? `: ${result.problem}` : ''}` +
            `${expected ? `\n  the platform hashed: ${JSON.stringify(expected)}` : ''}` +
            '\n  check EVSYNC_KEY_ID and EVSYNC_SIGNING_KEY; `evsync sign` shows what evsync hashes' +
            keyShapeHint(process.env.EVSYNC_SIGNING_KEY),
        );
      }
    });
}

/** What `/signature_test` said of the configured key, and the string it hashed, the key masked. */
export interface SignatureVerdict {
  result: SignatureTestResult;
  ms: number;
  expected: string | undefined;
}

/** One signed call to `/signature_test` (`ping`, `doctor`): quick to give up on a dead host. */
export async function testSignature(config: PlatformConfig): Promise<SignatureVerdict> {
  const client = PlatformClient.fromConfig(config, {
    retry: { maxAttempts: 2 },
    http: { connectTimeoutMs: 5_000, headersTimeoutMs: 15_000 },
  });
  const started = performance.now();
  try {
    const result = await client.signatureTest();
    const ms = Math.round(performance.now() - started);
    const expected =
      result.expectedSigningString === undefined
        ? undefined
        : redactSecrets(maskSigningKey(result.expectedSigningString, config.signingKey), [config.signingKey]);
    return { result, ms, expected };
  } finally {
    await client.close();
  }
}

/**
 * What is wrong with a signing key's shape, as pasted: surrounding spaces, quotes, or a
 * comment that `.env` took as part of the value. Says where, never the key.
 */
export function keyShapeHint(key: string | undefined): string {
  if (key === undefined) return '';
  if (/\s\(|\s#/.test(key))
    return '\n  EVSYNC_SIGNING_KEY holds more than a key: a comment pasted after it (`…   (a sandbox key…)` or `# …`) became part of the value. Keep only the key on that line.';
  if (key !== key.trim()) return '\n  EVSYNC_SIGNING_KEY starts or ends with spaces: remove them.';
  if (/["']/.test(key)) return '\n  EVSYNC_SIGNING_KEY holds a quote: remove the quotes around the key.';
  return '';
}
