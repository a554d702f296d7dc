import { readFileSync } from 'node:fs';
import { LineCounter, isNode, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { CODE } from '../errors/codes.js';
import { ConfigError } from '../errors/evsync-error.js';
import { fileProblem } from '../errors/file-problem.js';
import { explainIssues } from './zod-issues.js';

/** One problem found in a YAML file, located for a person to fix. */
export interface YamlIssue {
  file: string;
  line?: number;
  /** Dotted path inside the document, e.g. `steps.2.source.csv`. */
  path: string;
  message: string;
}

export function formatYamlIssue(issue: YamlIssue): string {
  const where = issue.line === undefined ? issue.file : `${issue.file}:${issue.line}`;
  return `${where}: ${issue.path || '(top level)'}: ${issue.message}`;
}

/**
 * Reads a YAML file and validates it with a zod schema, reporting every problem at once
 * with its line. Used for job files and mapping files alike.
 */
export function loadYamlFile<S extends z.ZodType>(file: string, schema: S, what: string): z.infer<S> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const problem = fileProblem(error, file);
    throw new ConfigError(`Cannot read the ${what}: ${problem ?? `${file}: ${String(error)}`}`, {
      ...(problem === undefined ? {} : { code: CODE.EVSYNC_FILE }),
      cause: error,
    });
  }
  return parseYamlText(text, file, schema, what);
}

export function parseYamlText<S extends z.ZodType>(
  text: string,
  file: string,
  schema: S,
  what: string,
): z.infer<S> {
  const lineCounter = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text.replace(/^\uFEFF/, ''), { lineCounter });
  } catch (error) {
    // Nesting deep enough to overflow the parser's stack.
    throw yamlError(what, file, [{ file, path: '', message: unreadableYaml(error) }]);
  }
  const syntaxIssues: YamlIssue[] = doc.errors.map((error) => ({
    file,
    line: error.linePos?.[0]?.line,
    path: '',
    message: `YAML syntax: ${(error.message.split('\n')[0] ?? error.code).replace(/ at line \d+, column \d+:?$/, '')}`,
  }));
  if (syntaxIssues.length > 0) throw yamlError(what, file, syntaxIssues);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // A "billion laughs" file: aliases of aliases that would expand to millions of nodes.
    throw yamlError(what, file, [{ file, path: '', message: unreadableYaml(error) }]);
  }
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issues = explainIssues(parsed.error.issues, [], schema)
    .map((issue) => ({
      file,
      line: lineOf(doc, lineCounter, issue.path),
      path: issue.path.map(String).join('.'),
      message: issue.message,
    }))
    // In file order, as a person fixes them (`sort` keeps the order of one line's problems).
    .sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
  throw yamlError(what, file, issues);
}

/**
 * How many times an alias may be expanded (yaml's own default): enough for the anchors a
 * person writes to share a block, far too few for a file built to expand exponentially.
 */
const MAX_ALIAS_COUNT = 100;

function unreadableYaml(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/alias count/i.test(message)) {
    return (
      'its aliases (*name) expand to too much data: a file built to exhaust memory ("billion laughs"), ' +
      'or anchors reused far more than a job or mapping needs: write the values out, or use fewer aliases'
    );
  }
  return `cannot be read as YAML (${message}): check its nesting and aliases`;
}

export class YamlFileError extends ConfigError {
  readonly issues: YamlIssue[];
  constructor(message: string, issues: YamlIssue[]) {
    super(message, { code: CODE.EVSYNC_INVALID_FILE });
    this.issues = issues;
  }
}

function yamlError(what: string, file: string, issues: YamlIssue[]): YamlFileError {
  const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return new YamlFileError(
    `The ${what} ${file} has ${count}:\n${issues.map((i) => `  ${formatYamlIssue(i)}`).join('\n')}`,
    issues,
  );
}

/** The line of the deepest node that exists along the path (a missing key points at its parent). */
function lineOf(doc: Document, lineCounter: LineCounter, path: readonly PropertyKey[]): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node: unknown = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth) as unknown[], true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return undefined;
}
