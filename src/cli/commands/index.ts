import type { Command } from 'commander';
import { registerPingCommand } from './ping.js';
import { registerSignCommand } from './sign.js';
import { registerSandboxCommand } from './sandbox.js';

/** Each command lives in its own file and adds itself to the program here. */
export const commandRegistrars: Array<(program: Command) => void> = [
  registerSignCommand,
  registerPingCommand,
  registerSandboxCommand,
];
