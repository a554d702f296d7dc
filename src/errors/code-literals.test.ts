import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from './codes.js';

const CATALOG_FILE = join('src', 'errors', 'codes.ts');

/** Looks like a code of ours, or a start of one in a template (`EVSYNC_SANDBOX_${status}`). */
const CODE_LIKE = /^(EVSYNC|CSV|SOURCE|MAPPING|SCHEDULE)_[A-Z0-9_]*$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every string literal and template text of a file, with its line; comments are not literals. */
function literals(file: string): Array<{ text: string; line: number }> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Array<{ text: string; line: number }> = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      found.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isCodeLike(text: string): boolean {
  return CODE_LIKE.test(text) || Object.hasOwn(ERROR_CATALOG, text);
}

describe('error codes in src/', () => {
  const files = sourceFiles('src').filter((file) => file !== CATALOG_FILE);

  it('are written as CODE.X from the catalog, never as string literals', { timeout: 60_000 }, () => {
    const found = files.flatMap((file) =>
      literals(file)
        .filter(({ text }) => isCodeLike(text))
        .map(({ text, line }) => `${file}:${line}: ${text}`),
    );
    expect(found).toEqual([]);
  });

  it('counts a catalogued code, a made-up one and a template that builds one as codes', () => {
    expect(['CSV_RAGGED_ROW', 'REQUIRED', 'EVSYNC_NEW_THING', 'EVSYNC_SANDBOX_'].map(isCodeLike)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['EVSYNC_BASE_URL is not set', 'custom', 'csv_ragged_row'].map(isCodeLike)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('each code of the catalog is raised somewhere, so the doc lists nothing that cannot happen', () => {
    const text = files.map((file) => readFileSync(file, 'utf8')).join('\n');
    const unused = Object.keys(ERROR_CATALOG).filter((code) => !text.includes(`CODE.${code}`));
    expect(unused).toEqual([]);
  });
});
