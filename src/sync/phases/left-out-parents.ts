import { CODE } from '../../errors/codes.js';
import { isParentKind, type IntentDependency, type IntentKind, type ParentKind } from '../../model/intent.js';
import type { FlatParams } from '../../model/params.js';
import { isRepeatedRowKey, isRowPlaceKey } from '../../model/row-origin.js';
import type { DependencyGate } from './dependency-gate.js';

/**
 * A row that a `when:` condition left out on purpose is keyed by its place in the ledger
 * (`@<source>:<row>`), so the users and events it would have synced are recorded in its
 * result's params as `left_out[<kind>][<n>]` = client_id. A link naming one of them is then
 * skipped on purpose, not lost (docs/sync-engine.md, "Phases"), in this process, in a resume
 * and in a distributed worker alike: all of them read it from the result.
 */
const LEFT_OUT = /^left_out\[(user|event)\]\[\d+\]$/;

/** The param that holds the `n`th client_id of `kind` a skipped row left out. */
export function leftOutParam(kind: ParentKind, n: number): string {
  return `left_out[${kind}][${n}]`;
}

/** The params that record the parents a skipped row left out (none: `{}`). */
export function leftOutParams(keys: ReadonlyArray<{ kind: IntentKind; key: string }>): FlatParams {
  const params: FlatParams = {};
  const counts = new Map<string, number>();
  for (const { kind, key } of keys) {
    if (!isParentKind(kind)) continue;
    const n = counts.get(kind) ?? 0;
    counts.set(kind, n + 1);
    params[leftOutParam(kind, n)] = key;
  }
  return params;
}

/** The parents a result of a row skipped on purpose left out (see {@link leftOutParams}). */
export function leftOutParents(result: {
  errorCode?: string | null;
  params?: FlatParams | null;
}): IntentDependency[] {
  if (result.errorCode !== CODE.EVSYNC_ROW_SKIPPED || !result.params) return [];
  const parents: IntentDependency[] = [];
  for (const name in result.params) {
    const kind = LEFT_OUT.exec(name)?.[1];
    const clientId = result.params[name];
    if ((kind === 'user' || kind === 'event') && clientId) parents.push({ kind, clientId });
  }
  return parents;
}

/**
 * Tells the gate what a row result says of parents: those it left out on purpose, or, for a
 * user or event row that failed validation (keyed by its client_id), that this parent
 * failed in this run, so a link naming it gives that reason rather than "unknown".
 */
export function noteLeftOut(
  gate: DependencyGate,
  result: {
    kind?: IntentKind;
    key?: string;
    action?: string;
    errorCode?: string | null;
    params?: FlatParams | null;
    message?: string | null;
  },
): void {
  for (const parent of leftOutParents(result)) gate.filtered(parent, result.message ?? 'a `when:` condition');
  const { kind, key } = result;
  if (result.action !== 'failed' || kind === undefined || key === undefined || !isParentKind(kind)) return;
  // A place key names no parent; a repeated row's (`<client_id>#row<n>`) may share its
  // client_id with a valid row, which decides.
  if (isRowPlaceKey(key) || isRepeatedRowKey(key)) return;
  gate.settle(
    { kind, clientId: key },
    false,
    `its row failed (${result.message ?? result.errorCode ?? 'invalid'})`,
  );
}
