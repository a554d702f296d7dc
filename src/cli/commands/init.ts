import { copyFileSync, lstatSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { shippedMappingsDir } from '../../mapping/shipped-mappings.js';
import {
  envTemplate,
  INIT_SOURCE_NAMES,
  INIT_SOURCES,
  type InitSourceName,
  jobTemplate,
} from '../init/init-templates.js';

interface InitOptions {
  from: string;
  force?: boolean;
  json?: boolean;
}

/** A file init writes: its text, or the shipped file it copies. */
type Planned = { text: string } | { copy: string };

export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description(
      'Start a working folder: a job file with a step for each of your sources, a .env to fill in, and the mappings to edit.',
    )
    .argument('[dir]', 'the folder to set up (created if missing)', '.')
    .option(
      '--from <sources>',
      `where your rows come from, separated by commas: ${INIT_SOURCE_NAMES.join(', ')}`,
      'csv',
    )
    .option('--force', 'overwrite files that are already there')
    .option('--json', 'print the folder and the files written as JSON')
    .action((dir: string, options: InitOptions) => {
      const sources = parseSources(options.from);
      const folder = resolve(dir);
      const files = plannedFiles(jobName(folder), sources);
      // A link counts as there even when what it points to is not: writing through a dangling
      // `job.yaml` link would create a file wherever it points.
      const present = [...files.keys()].filter((path) =>
        lstatSync(join(folder, path), { throwIfNoEntry: false }),
      );
      if (present.length > 0 && options.force !== true) {
        throw new ConfigError(
          `${shown(folder)} already has ${present.join(', ')}: nothing was written. Choose another folder, or add --force to overwrite them.`,
          { code: CODE.EVSYNC_USAGE },
        );
      }
      for (const [path, planned] of files) {
        const target = join(folder, path);
        mkdirSync(dirname(target), { recursive: true });
        // --force replaces a link with the file, never the file it points to.
        if (lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(target);
        if ('copy' in planned) copyFileSync(planned.copy, target);
        // .env holds the signing key once filled in: readable by its owner only.
        else writeFileSync(target, planned.text, path === '.env' ? { mode: 0o600 } : {});
      }
      process.stdout.write(
        options.json === true
          ? `${JSON.stringify({ folder, files: [...files.keys()], sources })}\n`
          : nextSteps(folder, [...files.keys()], sources),
      );
    });
}

function parseSources(list: string): InitSourceName[] {
  const names = list
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(INIT_SOURCE_NAMES as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new ConfigError(
      `--from ${unknown.join(', ') || '(nothing)'}: name your sources among ${INIT_SOURCE_NAMES.join(', ')}, separated by commas (e.g. --from eventbrite,sessionize).`,
      { code: CODE.EVSYNC_USAGE },
    );
  }
  return [...new Set(names)] as InitSourceName[];
}

/** The job's name: the folder's, in the letters a job name allows. */
function jobName(folder: string): string {
  const name = basename(folder)
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return name === '' ? 'my-sync' : name;
}

function plannedFiles(name: string, sources: readonly InitSourceName[]): Map<string, Planned> {
  const shipped = shippedMappingsDir();
  const files = new Map<string, Planned>([
    ['job.yaml', { text: jobTemplate(name, sources) }],
    ['.env', { text: envTemplate(sources) }],
    ['.gitignore', { text: '# Secrets and the embedded ledger stay on this machine.\n.env\n.evsync/\n' }],
    // The mappings name it (`$schema=./mapping.schema.json`): editors complete them with it.
    ['mappings/mapping.schema.json', { copy: join(shipped, 'mapping.schema.json') }],
  ]);
  for (const source of sources) {
    const spec = INIT_SOURCES[source];
    for (const mapping of spec.mappings)
      files.set(`mappings/${mapping}.yaml`, { copy: join(shipped, `${mapping}.yaml`) });
    for (const [path, text] of Object.entries('samples' in spec ? spec.samples : {}))
      files.set(path, { text });
  }
  return files;
}

function shown(folder: string): string {
  return relative(process.cwd(), folder) || '.';
}

/** A path as one word of a POSIX shell: single-quoted when it holds more than safe characters. */
export function shellWord(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

function nextSteps(folder: string, written: readonly string[], sources: readonly InitSourceName[]): string {
  const where = shown(folder);
  const exports = sources.filter(
    (source) => !('samples' in INIT_SOURCES[source]) && !('env' in INIT_SOURCES[source]),
  );
  return [
    `Wrote into ${where}/: ${written.join(', ')}.`,
    '',
    'Next:',
    ...(where === '.' ? [] : [`  cd ${shellWord(where)}`]),
    '  # fill in .env: the conference URL and your key (or rehearse on a sandbox in another',
    '  # terminal: `evsync sandbox --port 8080` prints the three lines to paste)',
    ...(exports.length > 0
      ? [`  # save your ${exports.join(' and ')} export(s) in data/ (job.yaml says where), or give their URL`]
      : []),
    '  # edit job.yaml and the files in mappings/ to fit your exports',
    '  evsync doctor job.yaml        # checks Node, the platform, the ledger and every source',
    '  evsync validate job.yaml      # reads and checks every row; sends nothing',
    '  evsync plan job.yaml          # what a run would create, update or delete',
    '  evsync run job.yaml           # the sync',
    '',
  ].join('\n');
}
