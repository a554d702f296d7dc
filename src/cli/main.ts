#!/usr/bin/env node
// First: V8's settings hold only for what is compiled after them.
import './process-flags.js';
import { CODE } from '../errors/codes.js';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { loadDotenvFile } from '../config/dotenv-file.js';
import { EvsyncError, messageOf } from '../errors/evsync-error.js';
import { redactUrl } from '../log/redaction.js';
import { commandRegistrars } from './commands/index.js';
import { EXIT, exitCodeFor, userFileError } from './exit-codes.js';
import { packageVersion } from './commands/version.js';
import { watchStdout, type StdoutWatch } from './stdout-errors.js';

/**
 * The program with the command `argv` names, or with every command (help, a usage error):
 * commands load on demand (commands/index.ts).
 */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const program = new Command('evsync')
    .description('Sync attendees, sessions, speakers and schedules to the Event Platform API.')
    .version(packageVersion(), '-V, --version', 'print the version of evsync')
    .helpOption('-h, --help', 'show the help of a command')
    .showHelpAfterError()
    .option('--log-json', 'log JSON lines on standard error, also on a terminal (EVSYNC_LOG_FORMAT=json)')
    .exitOverride();
  // Before any command logs: the root logger is created on first use.
  program.hook('preAction', (command) => {
    if (command.opts<{ logJson?: boolean }>().logJson) process.env.EVSYNC_LOG_FORMAT = 'json';
  });
  for (const register of await commandRegistrars(argv === undefined ? undefined : commandsFor(argv)))
    register(program);
  return program;
}

/** Runs the CLI; every error class maps to an exit code here and nowhere else. */
export async function main(argv: string[] = process.argv): Promise<number> {
  loadDotenvFile();
  const output = watchStdout();
  const code = await runCommand(argv, output);
  // Every path's last write (a summary, help, the `--json` error) fails on a later tick.
  await output.settled();
  return output.error ? stdoutFailed(output.error, code) : code;
}

/** The command `argv` names, to its exit code; standard output's errors are `main`'s. */
async function runCommand(argv: string[], output: StdoutWatch): Promise<number> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    await output.settled();
    // The command failed for standard output's sake (a write waiting for `drain`): main says so.
    if (output.error) return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
    const paths = givenPaths(argv);
    const shown = userFileError(error, paths) ?? error;
    // The last line of defence: a URL in any message loses its password and secret params.
    const message = redactUrl(messageOf(shown));
    process.stderr.write(`evsync: ${message}\n`);
    const exitCode = exitCodeFor(shown, paths);
    // A program that asked for JSON reads standard output: it gets the error there too.
    if (argv.slice(2).includes('--json')) {
      const code = shown instanceof EvsyncError ? shown.code : CODE.EVSYNC_INTERNAL;
      process.stdout.write(`${JSON.stringify({ error: { code, message, exitCode } })}\n`);
    }
    return exitCode;
  }
}

/**
 * A reader that stopped reading (`| head`) is no failure: quietly done. Any other write error
 * on standard output (disk full, a closed descriptor) is where the user sent the output: exit 2.
 */
function stdoutFailed(error: NodeJS.ErrnoException, exitCode: number): number {
  if (error.code === 'EPIPE') return exitCode;
  process.stderr.write(
    `evsync: cannot write to standard output (${messageOf(error)}): free some space or send the output elsewhere\n`,
  );
  return EXIT.usage;
}

/**
 * Every argument that could be a path the user typed (`validate --report r.csv`, `run
 * JOB.yaml`, `--state=F`): a file error on one of them is a usage error, not a crash.
 */
function givenPaths(argv: readonly string[]): string[] {
  return argv
    .slice(2)
    .map((arg) => (arg.startsWith('-') ? arg.slice(arg.indexOf('=') + 1 || arg.length) : arg))
    .filter((arg) => arg !== '');
}

/**
 * The commands `argv` needs: the one it runs, its first argument that is no option (the
 * program's own options take no value); none for a bare `--version`, which prints before any
 * command is looked at (a nightly `evsync --version` need not load them all); undefined, so
 * every command, for help or no command at all.
 */
function commandsFor(argv: readonly string[]): string[] | undefined {
  const args = argv.slice(2);
  if (args.some(isVersionFlag) && args.every((arg) => isVersionFlag(arg) || arg === '--log-json')) return [];
  const first = args.find((arg) => !arg.startsWith('-'));
  return first === undefined || first === 'help' ? undefined : [first];
}

function isVersionFlag(arg: string): boolean {
  return arg === '-V' || arg === '--version';
}

/** True when this file is the process's entry point, also through npm's bin symlink. */
function invokedDirectly(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (invokedDirectly()) process.exitCode = await main();
