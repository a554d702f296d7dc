import { describe, expect, it } from 'vitest';
import { mappingJsonSchema } from './mapping-json-schema.js';

describe('mapping JSON Schema', () => {
  it('is the published mappings/mapping.schema.json', async () => {
    await expect(`${JSON.stringify(mappingJsonSchema(), null, 2)}\n`).toMatchFileSnapshot(
      '../../mappings/mapping.schema.json',
    );
  });

  it('describes the shape editors complete: kinds, transforms, value forms', () => {
    const text = JSON.stringify(mappingJsonSchema());
    for (const word of [
      '"check_in"',
      '"strip_excel"',
      '"datetime"',
      '"template"',
      '"first_of"',
      '"on_duplicate"',
    ]) {
      expect(text).toContain(word);
    }
  });
});
