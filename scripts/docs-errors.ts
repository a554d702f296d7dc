import { writeFileSync } from 'node:fs';
import { ERRORS_DOC_PATH, renderErrorsDoc } from '../src/errors/errors-doc.js';

// `npm run docs:errors`: writes docs/errors.md from the catalog of codes.
writeFileSync(ERRORS_DOC_PATH, renderErrorsDoc());
process.stdout.write(`wrote ${ERRORS_DOC_PATH}\n`);
