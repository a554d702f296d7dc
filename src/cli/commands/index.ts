import type { Command } from 'commander';

/** Each command lives in its own file and adds itself to the program here. */
export const commandRegistrars: Array<(program: Command) => void> = [];
