import type { Command } from 'commander';
import { z } from 'zod';
import { ConfigError } from '../../errors/evsync-error.js';
import { describeFaults, parseFaultSpec } from '../../sandbox/fault-config.js';
import { parseRateLimit } from '../../sandbox/rate-limiter.js';
import { startSandbox } from '../../sandbox/start-sandbox.js';
import { credentialLines, stateSigningKey, writeCredentials } from './sandbox-credentials.js';

interface SandboxCliOptions {
  port: string;
  host: string;
  keyId: string;
  signingKey?: string;
  vendor: string;
  seed?: string;
  state?: string;
  faults?: string;
  rateLimit?: string;
  writeEnv?: string;
  json?: boolean;
}

const cliSchema = z.object({
  port: z.coerce
    .number('must be a port number, 0 to 65535')
    .int('must be a port number, 0 to 65535')
    .min(0, 'must be a port number, 0 to 65535')
    .max(65_535, 'must be a port number, 0 to 65535'),
  keyId: z.string().regex(/^\d+$/, 'must be the integer key_id callers sign with, e.g. 1'),
  vendor: z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be a lower-case word such as "svc"'),
});

/** The option each checked field comes from, to name it as the user typed it. */
const OPTION_OF: Record<string, string> = { port: '--port', keyId: '--key-id', vendor: '--vendor' };

export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description(
      'Serve the whole Event Platform API on localhost: a faithful emulator to test and rehearse against.',
    )
    .option('--port <n>', 'port to listen on (0: any free port)', '8080')
    .option('--host <host>', 'address to bind (admin endpoints answer loopback callers only)', '127.0.0.1')
    .option('--key-id <n>', 'the integer key_id callers sign with', '1')
    .option('--signing-key <key>', 'the signing key (default: a random one, printed below)')
    .option('--vendor <word>', 'the word in user[<word>_auth_attributes]', 'svc')
    .option('--seed <file>', 'a JSON or YAML seed: platform-wide users, exhibitors, tracks, features, events')
    .option('--state <file>', 'load the conference from this JSON file and save every change back to it')
    .option('--faults <spec>', 'inject faults, e.g. "latency=5-20,503=0.05,reset=0.01,commit-drop=2x"')
    .option('--rate-limit <r/s>', 'requests per second per key_id, e.g. 50/s or 50/s:100 (burst)')
    // Not `--env-file`: Node 20 takes that flag for itself wherever it stands on the command line.
    .option(
      '--write-env <file>',
      'write EVSYNC_BASE_URL, EVSYNC_KEY_ID and EVSYNC_SIGNING_KEY into this env file (e.g. .env)',
    )
    .option('--json', 'print the start-up details as one JSON line')
    .action(async (options: SandboxCliOptions) => {
      const checked = cliSchema.safeParse(options);
      if (!checked.success) {
        const problems = checked.error.issues.map(
          (issue) =>
            `${OPTION_OF[String(issue.path[0])] ?? String(issue.path[0])} "${String(options[issue.path[0] as keyof SandboxCliOptions])}" ${issue.message}`,
        );
        throw new ConfigError(`sandbox: ${problems.join('; ')}`);
      }
      const rateLimit = options.rateLimit === undefined ? undefined : parseRateLimit(options.rateLimit);
      if (options.rateLimit !== undefined && !rateLimit) {
        throw new ConfigError(`sandbox: --rate-limit "${options.rateLimit}" is not a rate; use e.g. 50/s.`);
      }
      const faults = parseFaultSpec(options.faults ?? '');
      const sandbox = await startSandbox({
        port: checked.data.port,
        host: options.host,
        keyId: checked.data.keyId,
        vendor: checked.data.vendor,
        faults,
        // With --state, the key is kept beside it: a restart keeps the `.env` that was pasted working.
        ...(options.signingKey !== undefined
          ? { signingKey: options.signingKey }
          : options.state !== undefined
            ? { signingKey: stateSigningKey(options.state) }
            : {}),
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(options.state === undefined ? {} : { stateFile: options.state }),
        ...(rateLimit === undefined ? {} : { rateLimit }),
      });
      // A wildcard bind (0.0.0.0) is shown as its loopback address, which is what works locally.
      const url = sandbox.url;
      const credentials = {
        EVSYNC_BASE_URL: url,
        EVSYNC_KEY_ID: sandbox.keyId,
        EVSYNC_SIGNING_KEY: sandbox.signingKey,
      };
      if (options.writeEnv !== undefined) writeCredentials(options.writeEnv, credentials);
      if (options.json === true) {
        process.stdout.write(
          `${JSON.stringify({ url, keyId: sandbox.keyId, signingKey: sandbox.signingKey, admin: `${url}/_sandbox/` })}\n`,
        );
      } else {
        // The key is the sandbox's own throwaway key, so it is shown in full: callers need it.
        process.stdout.write(
          [
            `evsync sandbox listening on ${url}`,
            options.writeEnv === undefined
              ? 'Paste these lines into .env as they are (or start it with --write-env .env):'
              : `Written into ${options.writeEnv}:`,
            '',
            ...credentialLines(credentials),
            '',
            `  admin (unsigned, loopback only): ${url}/_sandbox/  counters · state · reset · faults · seed`,
            `  faults: ${describeFaults(faults)}; rate limit: ${rateLimit ? `${rateLimit.perSecond}/s per key_id` : 'none'}`,
            `  state: ${options.state ?? 'in memory only'}. Stop with Ctrl-C.`,
            '',
          ].join('\n'),
        );
      }
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await sandbox.close();
    });
}
