import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, type CodeInfo } from './codes.js';
import { ERRORS_DOC_PATH, renderErrorsDoc } from './errors-doc.js';

describe('docs/errors.md', () => {
  it('is what the catalog generates (run `npm run docs:errors` after changing a code)', () => {
    expect(readFileSync(ERRORS_DOC_PATH, 'utf8')).toBe(renderErrorsDoc());
  });

  it('lists every code of the catalog once, under its layer', () => {
    const doc = renderErrorsDoc();
    for (const code of Object.keys(ERROR_CATALOG)) {
      expect(doc.split(`| \`${code}\` |`).length - 1, code).toBe(1);
    }
  });

  it('changes when an entry changes, so a stale doc is caught', () => {
    const catalog: Record<string, CodeInfo> = { ...ERROR_CATALOG };
    catalog['EVSYNC_USAGE'] = { ...ERROR_CATALOG.EVSYNC_USAGE, action: 'Something else | entirely.' };
    const doc = renderErrorsDoc(catalog);
    expect(doc).not.toBe(renderErrorsDoc());
    expect(doc).toContain('Something else \\| entirely.');
  });
});
