import { openSource } from '../../src/sources/open-source.js';
import { sourceConfigSchema } from '../../src/sources/source-config.js';
import type { SourceItem } from '../../src/sources/source-row.js';

/** Every item of a source given as a job step's raw `source:` config, read to the end. */
export async function readSourceConfig(
  source: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for await (const item of openSource(sourceConfigSchema.parse(source), { baseDir: '.', env }).rows()) {
    items.push(item);
  }
  return items;
}
