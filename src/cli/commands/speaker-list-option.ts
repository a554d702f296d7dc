import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import type { Logger } from '../../log/logger.js';
import { openSource } from '../../sources/open-source.js';

/** Header names the speaker list's columns are found by, ignoring case, spaces, `_` and `-`. */
const CANDIDATES = {
  // pretalx's speaker export calls the code `ID`; Sessionize's, the GUID `Speaker Id`.
  id: ['id', 'code', 'speakerid', 'speakercode'],
  email: ['email', 'emailaddress', 'mail'],
  name: ['name', 'fullname', 'publicname', 'speakername'],
} as const;

const columnKey = (name: string): string => name.toLowerCase().replace(/[\s_-]+/g, '');

/**
 * `validate --speakers FILE`: the job file's `speakers:` setting for a CSV whose columns are
 * found by their usual names, so that a schedule export's speakers can be checked with their
 * e-mails from the command line as a job would sync them (docs/sources.md). Only the header is
 * read here; the rows are read by the source as usual.
 */
export async function speakerListConfig(
  file: string,
  logger: Logger,
): Promise<{ csv: string; id?: string; email: string; name?: string }> {
  const columns = await headerOf(file, logger);
  const find = (names: readonly string[]): string | undefined =>
    names.map((name) => columns.find((column) => columnKey(column) === name)).find(Boolean);
  const email = find(CANDIDATES.email);
  if (email === undefined) {
    throw new ConfigError(
      `--speakers ${file} has no e-mail column (Email, E-Mail or Mail; its columns: ${columns.join(', ') || 'none'}): name it so, or write a job file with speakers: (docs/sources.md)`,
      { code: CODE.EVSYNC_USAGE },
    );
  }
  const id = find(CANDIDATES.id);
  const name = find(CANDIDATES.name);
  return { csv: file, email, ...(id ? { id } : {}), ...(name ? { name } : {}) };
}

async function headerOf(file: string, logger: Logger): Promise<string[]> {
  const source = openSource({ csv: { path: file } }, { baseDir: process.cwd(), logger });
  for await (const item of source.rows()) if (item.ok) return Object.keys(item.values);
  return [];
}
