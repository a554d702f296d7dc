import { validateWriteParams, type WriteOperation } from '../platform/write-params/validate-write-params.js';
import type { FlatParams } from '../model/params.js';
import { SandboxHttpError, type ParamErrors } from './sandbox-http-error.js';

export type { WriteOperation } from '../platform/write-params/validate-write-params.js';

/**
 * Runs the shared write-param rules (the ones the connector checks before sending) and
 * turns their findings into one 422 naming every bad param, as the real service would.
 * The sandbox keeps no copy of those rules.
 */
export function assertValidWrite(
  operation: WriteOperation,
  params: FlatParams,
  vendor: string,
  pathId: string | undefined,
): void {
  const problems = validateWriteParams(
    operation,
    params,
    pathId === undefined ? { vendor } : { vendor, pathId },
  );
  if (problems.length === 0) return;
  const errors: ParamErrors = {};
  for (const problem of problems) (errors[problem.param] ??= []).push(problem.message);
  const summary = problems.map((problem) => `${problem.param}: ${problem.message}`).join('; ');
  throw new SandboxHttpError(422, `Invalid params: ${summary}`, { errors });
}
