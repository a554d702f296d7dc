#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { loadDotenvFile } from '../config/env-config.js';
import { messageOf } from '../errors/evsync-error.js';
import { commandRegistrars } from './commands/index.js';
import { EXIT, exitCodeFor } from './exit-codes.js';

export function buildProgram(): Command {
  const program = new Command('evsync')
    .description('Sync attendees, sessions, speakers and schedules to the Event Platform API.')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  for (const register of commandRegistrars) register(program);
  return program;
}

/** Runs the CLI; every error class maps to an exit code here and nowhere else. */
export async function main(argv: string[] = process.argv): Promise<number> {
  loadDotenvFile();
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    process.stderr.write(`evsync: ${messageOf(error)}\n`);
    return exitCodeFor(error);
  }
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
