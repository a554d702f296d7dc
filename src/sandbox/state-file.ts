import { readFile, rename, writeFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import { fileProblem } from '../errors/file-problem.js';
import type { StateSnapshot } from './state-types.js';

/**
 * The outline of a state file. Records inside are trusted as the sandbox wrote them;
 * the outline check catches the wrong file (a seed, a mapping) with a clear message.
 */
const snapshotOutline = z.looseObject({
  version: z.literal(1),
  nextId: z.number().int().min(1),
  adminUserId: z.number().int(),
  conferenceFeatureId: z.number().int(),
  conferenceName: z.string(),
  users: z.array(z.looseObject({ id: z.number().int() })),
  events: z.array(z.looseObject({ id: z.number().int() })),
  tracks: z.array(z.unknown()),
  features: z.array(z.unknown()),
  exhibitors: z.array(z.unknown()),
  tags: z.record(z.string(), z.number()),
  schedules: z.record(z.string(), z.array(z.number())),
  contacts: z.record(z.string(), z.array(z.unknown())),
  checkIns: z.array(z.unknown()),
});

/** Reads a state file written by {@link saveStateFile}; `undefined` when there is none yet. */
export async function loadStateFile(path: string): Promise<StateSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`Cannot read sandbox state file ${path}.`, {
      code: CODE.EVSYNC_SANDBOX_STATE,
      cause: error,
    });
  }
  const parsed = snapshotOutline.safeParse(parseJson(text, path));
  if (!parsed.success) {
    throw new ConfigError(
      `${path} is not a sandbox state file (${z.prettifyError(parsed.error)}). Use --seed for seed files.`,
      { code: CODE.EVSYNC_SANDBOX_STATE },
    );
  }
  return parsed.data as unknown as StateSnapshot;
}

/** Writes through a temporary file and a rename, so a crash never leaves half a file. */
export async function saveStateFile(path: string, snapshot: StateSnapshot): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(snapshot, null, 1)}\n`, 'utf8');
  await rename(temporary, path);
}

/** A seed file: JSON, or YAML when it ends in .yaml/.yml. */
export async function readSeedFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read the sandbox seed file: ${fileProblem(error, path) ?? `${path}.`}`, {
      code: CODE.EVSYNC_SANDBOX_SEED,
      cause: error,
    });
  }
  return /\.ya?ml$/i.test(path) ? (parseYaml(text) as unknown) : parseJson(text, path);
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message}`, {
      code: CODE.EVSYNC_SANDBOX_STATE,
      cause: error,
    });
  }
}
