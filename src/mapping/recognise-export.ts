import { normalizeColumnName } from './compile/column-binder.js';
import { loadMapping } from './load-mapping.js';
import { shippedMappingNames } from './shipped-mappings.js';

export interface RecognisedExport {
  /** The shipped mapping's name (`pretix-checkin`). */
  mapping: string;
  /** Its `description:`, which says which export it reads. */
  description: string | undefined;
}

/**
 * The shipped mappings whose `detect:` columns a header has, best first (the one that
 * recognises it by the most columns): `evsync validate --source F` without `--mapping`.
 * Columns compare as mappings read them, ignoring case, spaces, `_` and `-`.
 */
export async function recogniseExport(
  header: readonly string[],
  vendor: string,
): Promise<RecognisedExport[]> {
  const present = new Set(header.map(normalizeColumnName));
  const found: Array<RecognisedExport & { columns: number }> = [];
  for (const name of shippedMappingNames()) {
    const mapping = await loadMapping(name, { vendor });
    const detect = mapping.detect;
    if (detect === undefined || detect.length === 0) continue;
    if (detect.every((aliases) => aliases.some((alias) => present.has(normalizeColumnName(alias)))))
      found.push({ mapping: name, description: mapping.description, columns: detect.length });
  }
  return found
    .sort((a, b) => b.columns - a.columns)
    .map(({ mapping, description }) => ({ mapping, description }));
}

/** The shipped mappings that say how to recognise the export they read (`detect:`). */
export async function exportMappingNames(vendor: string): Promise<string[]> {
  const names: string[] = [];
  for (const name of shippedMappingNames())
    if (((await loadMapping(name, { vendor })).detect?.length ?? 0) > 0) names.push(name);
  return names;
}
