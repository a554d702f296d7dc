import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { vendorWord } from '../../config/env-config.js';
import type { FlatParams } from '../../model/params.js';
import { encodeForm } from '../../platform/params.js';
import { maskSigningKey, signRequest } from '../../platform/signing.js';
import { authAttributes, DEFAULT_VENDOR } from '../../platform/vendor.js';

interface SignOptions {
  keyId: string;
  signingKey: string;
  vendor: string;
  get: FlatParams;
  post: FlatParams;
  showKey?: boolean;
  json?: boolean;
}

/** `k=v` → adds to the map; the value may hold further `=` signs, blanks and newlines. */
function collectParam(pair: string, previous: FlatParams): FlatParams {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`"${pair}" is not key=value`);
  return { ...previous, [pair.slice(0, eq)]: pair.slice(eq + 1) };
}

function parseKeyId(value: string): string {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('the key_id is an integer');
  return value;
}

function parseVendor(value: string): string {
  const parsed = vendorWord.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? 'not a vendor word');
  return value;
}

/** Param names written with the spec's `svc` get the configured vendor word instead. */
export function withVendor(params: FlatParams, vendor: string): FlatParams {
  const from = authAttributes(DEFAULT_VENDOR);
  const to = authAttributes(vendor);
  const out: FlatParams = {};
  for (const [key, value] of Object.entries(params))
    out[key.startsWith(from) ? to + key.slice(from.length) : key] = value;
  return out;
}

/** What `evsync sign` shows; the signing key is masked unless asked for. */
export function describeSignature(options: Omit<SignOptions, 'json'>): {
  signingString: string;
  sig: string;
  query: string;
  body: string;
} {
  const signed = signRequest({
    keyId: options.keyId,
    signingKey: options.signingKey,
    query: withVendor(options.get, options.vendor),
    body: withVendor(options.post, options.vendor),
  });
  return {
    signingString: options.showKey
      ? signed.signingString
      : maskSigningKey(signed.signingString, options.signingKey),
    sig: signed.sig,
    query: encodeForm(signed.query),
    body: encodeForm(withVendor(options.post, options.vendor)),
  };
}

export function registerSignCommand(program: Command): void {
  program
    .command('sign')
    .summary('Sign a request offline as the platform does and show the string that was hashed.')
    .description(
      'Sign a request offline as the platform does (its signing rules) and show the string that was hashed: compare it with what the platform expected after a 401. The client also sends format=json as a GET param; pass --get format=json to match it.',
    )
    .requiredOption('--key-id <id>', 'the integer key_id of the application key', parseKeyId)
    .requiredOption('--signing-key <key>', 'the signing key (shown masked unless --show-key)')
    .addOption(
      new Option('--vendor <word>', 'the word that replaces "svc" in user[svc_auth_attributes]...')
        .default(DEFAULT_VENDOR)
        .argParser(parseVendor),
    )
    .addOption(
      new Option('--get <key=value>', 'a GET (query) param; repeat for more')
        .argParser(collectParam)
        .default({}, 'none'),
    )
    .addOption(
      new Option('--post <key=value>', 'a POST/PUT/DELETE body param; repeat for more')
        .argParser(collectParam)
        .default({}, 'none'),
    )
    .option('--show-key', 'show the signing key at the end of the signing string')
    .option('--json', 'print JSON instead of text')
    .action((options: SignOptions) => {
      const result = describeSignature(options);
      if (options.json === true) {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
      process.stdout.write(
        [
          `string to sign: ${JSON.stringify(result.signingString)}`,
          `sig:            ${result.sig}`,
          `query:          ?${result.query}`,
          ...(result.body === '' ? [] : [`body:           ${result.body}`]),
          '',
        ].join('\n'),
      );
    });
}
