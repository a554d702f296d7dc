import { ERROR_CATALOG, type CodeInfo, type CodeLayer } from './codes.js';

/** Where docs/errors.md lives, from the repository's root. */
export const ERRORS_DOC_PATH = 'docs/errors.md';

const LAYERS: ReadonlyArray<{ layer: CodeLayer; title: string }> = [
  { layer: 'cli', title: 'The command line' },
  { layer: 'config', title: 'Configuration' },
  { layer: 'sources', title: 'Sources' },
  { layer: 'mapping', title: 'Mappings' },
  { layer: 'write-params', title: "The platform's write-param rules" },
  { layer: 'sync', title: 'Runs and their rows' },
  { layer: 'ledger', title: 'The ledger' },
  { layer: 'platform', title: 'Calls to the platform' },
  { layer: 'sandbox', title: 'The sandbox' },
];

const HEAD = `# Error codes

<!-- Generated from src/errors/codes.ts by \`npm run docs:errors\`: edit the catalog, not this file. -->

Every code evsync shows: on an error that stops a command (with exit code 2 or 3), on a
row's result in the ledger and in \`evsync report\`, and on a field's problem in
\`evsync validate --report\`. Codes are stable: match on them, never on message text.

## How codes are named

A code is UPPER_SNAKE_CASE and its first word is the area where the fix lies:

- \`EVSYNC_\`: evsync's own setup and machinery: the command line, configuration, runs,
  the ledger (\`EVSYNC_LEDGER_\`), calls to the platform (\`EVSYNC_PLATFORM_\`), the
  sandbox (\`EVSYNC_SANDBOX_\`);
- \`SOURCE_\`, \`CSV_\`, \`SCHEDULE_\`: the source being read: any source, a CSV file, a
  schedule export;
- \`MAPPING_\`: a mapping, or a row's values under it;
- no prefix: a value that breaks one of the platform's write-param rules (\`REQUIRED\`,
  \`TOO_LONG\`…), always shown beside the param it concerns, and the notes of
  \`evsync validate\` (\`SKIPPED\`, \`DUPLICATE_FIRST\`, \`DUPLICATE_LAST\`).

A row's result carries the code of its first problem, so a row can show a \`CSV_\`,
\`MAPPING_\` or write-param code as well as an \`EVSYNC_\` one.

**Retry** is the \`retryable\` flag of an error with that code: *retryable* when a later
try of the same thing can succeed (the platform client tries again by itself first),
*permanent* when evsync does not try again by itself, *by status* when the answer's status
decides. Row notes and field problems, which are no errors, have none.
`;

/** docs/errors.md, as generated from the catalog. */
export function renderErrorsDoc(catalog: Readonly<Record<string, CodeInfo>> = ERROR_CATALOG): string {
  const sections = LAYERS.map(({ layer, title }) => {
    const rows = Object.entries(catalog)
      .filter(([, info]) => info.layer === layer)
      .map(
        ([code, info]) =>
          `| \`${code}\` | ${cell(info.meaning)} | ${cell(info.action)} | ${info.retry ?? ''} |`,
      );
    if (rows.length === 0) return '';
    return `\n## ${title}\n\n| Code | Meaning | What to do | Retry |\n|---|---|---|---|\n${rows.join('\n')}\n`;
  });
  return HEAD + sections.join('');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}
