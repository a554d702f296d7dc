import { z } from 'zod';

import type { ValidateWriteParamsOptions, WriteOperation } from './validate-write-params.js';
import { validateWriteParams } from './validate-write-params.js';

/**
 * The write-param rules as a zod schema over flat params, for pipelines that already speak
 * zod: each {@link validateWriteParams} issue becomes a zod issue whose `path` is the param
 * name and whose `params.code` is the stable issue code.
 */
export function writeParamsSchema(operation: WriteOperation, options: ValidateWriteParamsOptions) {
  return z.record(z.string(), z.string()).superRefine((params, ctx) => {
    for (const issue of validateWriteParams(operation, params, options)) {
      ctx.addIssue({
        code: 'custom',
        path: [issue.param],
        message: issue.message,
        params: { code: issue.code },
      });
    }
  });
}
