import { readFileSync } from 'node:fs';
import type { Command } from 'commander';

/** The installed package's version: from its package.json, wherever it is installed (src/ or dist/). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? 'unknown';
}

export function registerVersionCommand(program: Command): void {
  program
    .command('version')
    .description('Print the version of evsync and of Node.js it runs on.')
    .action(() => {
      process.stdout.write(`evsync ${packageVersion()} (Node.js ${process.versions.node})\n`);
    });
}
