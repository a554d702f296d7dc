import { z } from 'zod';
import { mappingFileSchema } from './mapping-file-schema.js';

/**
 * The JSON Schema of mapping files, published as `mappings/mapping.schema.json` for
 * editors (the YAML language server picks it up from each file's first line). Generated
 * from the zod schema that loads the files, so the two cannot drift: a test keeps the
 * published file equal to this (`npx vitest run src/mapping -u` rewrites it).
 */
export function mappingJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(mappingFileSchema, { io: 'input', unrepresentable: 'any', reused: 'ref' }),
    $id: 'https://evsync.dev/schemas/mapping.schema.json',
    title: 'evsync mapping file',
    description:
      'Turns the rows of a source into write intents of the Event Platform API. See docs/mapping.md.',
  };
}
