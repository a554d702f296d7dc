import { readFileSync } from 'node:fs';
import type { Command } from 'commander';

/** What evsync reads of its own package.json. */
export interface PackageManifest {
  version?: string;
  engines?: { node?: string };
}

/** The installed package's package.json, wherever it is installed (src/ or dist/). */
export function packageManifest(): PackageManifest {
  return JSON.parse(
    readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
  ) as PackageManifest;
}

/** The installed package's version. */
export function packageVersion(): string {
  return packageManifest().version ?? 'unknown';
}

export function registerVersionCommand(program: Command): void {
  program
    .command('version')
    .description('Print the version of evsync and of Node.js it runs on.')
    .option('--json', 'print them as JSON')
    .action((options: { json?: boolean }) => {
      process.stdout.write(
        options.json === true
          ? `${JSON.stringify({ evsync: packageVersion(), node: process.versions.node })}\n`
          : `evsync ${packageVersion()} (Node.js ${process.versions.node})\n`,
      );
    });
}
