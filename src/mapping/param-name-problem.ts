import { CODE } from '../errors/codes.js';
import type { IntentKind } from '../model/intent.js';
import { writeOperation } from './intent-identity.js';
import { paramAliases } from './param-aliases.js';
import { validateWriteParams } from '../platform/write-params/validate-write-params.js';

/**
 * Why a param name a mapping wrote cannot be used, or `undefined` when it can. `name` is
 * what `written` resolved to (`resolveParamName`). Asked of the write-param validator
 * itself, so that mappings and validation never disagree about which names exist. Shared
 * by YAML mapping files (checked when they load) and mapping modules (checked per row).
 */
export function paramNameProblem(
  kind: IntentKind,
  written: string,
  name: string,
  vendor: string,
): string | undefined {
  if (/_auth_attributes\]/.test(written) && !written.includes('{vendor}')) {
    return 'write user[{vendor}_auth_attributes][…] (or the short name email), so the vendor word stays one setting';
  }
  return isKnownParam(kind, name, vendor) ? undefined : unknownParamMessage(kind, written);
}

/** Whether the platform knows `name` (a full name; `[n]` stands for any index) for a kind. */
export function isKnownParam(kind: IntentKind, name: string, vendor: string): boolean {
  const probe = name.replace(/\[n\]/g, '[0]');
  return !validateWriteParams(
    writeOperation(kind, 'upsert'),
    { [probe]: 'x' },
    { vendor, strict: true },
  ).some((issue) => issue.code === CODE.UNKNOWN_PARAM && issue.param === probe);
}

export function unknownParamMessage(kind: IntentKind, written: string): string {
  return `${written} is not a param of a ${kind}: use a short name (${paramAliases(kind).join(', ')}) or the spec's bracketed name`;
}
