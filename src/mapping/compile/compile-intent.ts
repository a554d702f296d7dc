import { CODE } from '../../errors/codes.js';
import type { RawRecord } from '../../sources/source-row.js';
import type { DraftProblem, IntentDraft } from '../loaded-mapping.js';
import { conditions } from '../mapping-file-rules.js';
import type { BoundIntentSpec } from './unmapped-custom-data.js';
import { resolveParamName } from '../param-aliases.js';
import { intentKey } from '../intent-identity.js';
import { isParentKind } from '../../model/intent.js';
import { quote } from '../../platform/write-params/text-rules.js';
import { compileCondition } from './compile-condition.js';
import { compileParamsWriter, type ParamPlan } from './compile-params-writer.js';
import { ValueProblem } from './compile-transform.js';
import {
  compileSimpleValue,
  compileValue,
  type CompileContext,
  type CompiledValue,
} from './compile-value.js';

export type IntentOutcome =
  | { type: 'draft'; draft: IntentDraft; problems: DraftProblem[] }
  /** `passed`: how many of the intent's conditions held before one did not. */
  | {
      type: 'skip';
      reason: string;
      passed: number;
      incomplete: boolean;
      /** A user's or event's client_id, read although the row is left out on purpose (see `RowSkip.keys`). */
      key?: string;
    };

export type CompiledIntent = (values: RawRecord) => IntentOutcome;

const BLOCK_PREFIX = {
  addresses: 'user[account_attributes][addresses_attributes]',
  phones: 'user[item_attributes][phones_attributes]',
} as const;

const OP_WORDS = new Map<string, 'upsert' | 'remove'>([
  ...(['upsert', 'add', 'yes', 'create', 'update'] as const).map((word) => [word, 'upsert'] as const),
  ...(['remove', 'delete', 'no', 'cancel'] as const).map((word) => [word, 'remove'] as const),
]);

/** Compiles one `intents:` entry against a source header. */
export function compileIntent(
  spec: BoundIntentSpec,
  context: CompileContext,
  vendor: string,
): CompiledIntent {
  const kind = spec.kind;
  const when = conditions(spec.when).map((condition) => compileCondition(condition, context.binder));
  const params: ParamPlan[] = Object.entries(spec.params).map(([written, value]) => {
    const name = resolveParamName(kind, written, vendor);
    return { name, indexed: name.includes('[n]'), value: compileValue(value, context) };
  });
  const blocks = (['addresses', 'phones'] as const).map((field) => {
    const entries = (spec[field] ?? []).map((block) =>
      Object.entries(block).map(([sub, value]) => ({ sub, value: compileSimpleValue(value, context) })),
    );
    // Full param names per index, built once: `…[addresses_attributes][0][city]`.
    const names = entries.map((_, index) =>
      Object.fromEntries(
        entries.flat().map(({ sub }) => [sub, `${BLOCK_PREFIX[field]}[${index}][${sub}]`] as const),
      ),
    );
    return { prefix: BLOCK_PREFIX[field], names, entries };
  });
  const labels = paramLabels(params, blocks);
  const required = requiredParams(spec, blocks, vendor);
  const jsonObjects = jsonParams(spec, vendor);
  const key = spec.key === undefined ? undefined : compileSimpleValue(spec.key, context);
  const op =
    spec.op === undefined || spec.op === 'upsert' || spec.op === 'remove'
      ? (spec.op ?? 'upsert')
      : compileSimpleValue(spec.op, context);

  const writeParams = compileParamsWriter(params, blocks);

  // The key of a user or event left out on purpose: the links that name it are then
  // skipped on purpose too, not lost (docs/sync-engine.md, "Phases"). Read only for such rows.
  const skippedKey = (values: RawRecord): string | undefined => {
    if (key !== undefined) {
      const value = key.read(values);
      if (value instanceof ValueProblem) return undefined;
      return (typeof value === 'string' ? value : value.join(',')) || undefined;
    }
    return intentKey(kind, writeParams(values, []));
  };

  return (values) => {
    for (let passed = 0; passed < when.length; passed++) {
      const condition = when[passed]!;
      const reason = condition(values);
      if (reason === undefined) continue;
      const incomplete = condition.requiresValue === true;
      const leftOut = incomplete || !isParentKind(kind) ? undefined : skippedKey(values);
      return { type: 'skip', reason, passed, incomplete, ...(leftOut ? { key: leftOut } : {}) };
    }
    const problems: DraftProblem[] = [];
    const out = writeParams(values, problems);
    const draft: IntentDraft = { kind, op: 'upsert', params: out, columns: labels };
    if (required !== undefined) draft.required = required;
    if (jsonObjects !== undefined) draft.jsonObjects = jsonObjects;
    if (problems.length > 0) draft.failedParams = failedParams(problems);
    if (typeof op === 'string') draft.op = op;
    else readOp(op, values, draft, problems);
    if (key !== undefined) {
      draft.keyLabel = key.label;
      const keyValue = key.read(values);
      if (keyValue instanceof ValueProblem) {
        problems.push({ field: key.label, message: keyValue.message, code: keyValue.code });
      } else if (keyValue.length > 0) {
        draft.key = typeof keyValue === 'string' ? keyValue : keyValue.join(',');
      }
    }
    return { type: 'draft', draft, problems };
  };
}

/** The params whose value the mapping marks `required: true` (see optional-fields.ts). */
function requiredParams(
  spec: BoundIntentSpec,
  blocks: ReadonlyArray<{ names: ReadonlyArray<Record<string, string>>; entries: unknown[] }>,
  vendor: string,
): ReadonlySet<string> | undefined {
  const required = new Set<string>();
  for (const [written, value] of Object.entries(spec.params))
    if (isMarkedRequired(value)) required.add(resolveParamName(spec.kind, written, vendor));
  (['addresses', 'phones'] as const).forEach((field, blockIndex) => {
    (spec[field] ?? []).forEach((entry, index) => {
      for (const [sub, value] of Object.entries(entry)) {
        const name = blocks[blockIndex]?.names[index]?.[sub];
        if (isMarkedRequired(value) && name !== undefined) required.add(name);
      }
    });
  });
  return required.size > 0 ? required : undefined;
}

/** The params written as `{json: …}`: a JSON object, or nothing when all its values are empty. */
function jsonParams(spec: BoundIntentSpec, vendor: string): ReadonlySet<string> | undefined {
  const names = new Set<string>();
  for (const [written, value] of Object.entries(spec.params))
    if (typeof value === 'object' && !Array.isArray(value) && 'json' in value)
      names.add(resolveParamName(spec.kind, written, vendor));
  return names.size > 0 ? names : undefined;
}

function isMarkedRequired(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'required' in value && value.required === true;
}

function failedParams(problems: readonly DraftProblem[]): string[] {
  const names: string[] = [];
  for (const problem of problems) if (problem.param !== undefined) names.push(problem.param);
  return names;
}

function readOp(op: CompiledValue, values: RawRecord, draft: IntentDraft, problems: DraftProblem[]): void {
  const value = op.read(values);
  if (value instanceof ValueProblem) {
    problems.push({ field: op.label, message: value.message, code: value.code });
    return;
  }
  const text = typeof value === 'string' ? value : value.join(',');
  const mapped = OP_WORDS.get(text.trim().toLowerCase());
  if (mapped !== undefined) draft.op = mapped;
  else {
    problems.push({
      field: op.label,
      message: `${quote(text)} is not an action: write add or remove (upsert, yes, delete, no also work)`,
      code: CODE.MAPPING_INVALID_OP,
    });
  }
}

/**
 * Param → column label, computed once and shared by every draft: messages about a missing
 * param name the column that should have filled it. Indexed names are listed for the
 * indexes a mapping can produce (blocks) and as `[n]` (lists).
 */
function paramLabels(
  params: readonly ParamPlan[],
  blocks: ReadonlyArray<{ prefix: string; entries: Array<Array<{ sub: string; value: CompiledValue }>> }>,
): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const param of params) {
    labels[param.name] = param.value.label;
    if (param.indexed) labels[param.name.replace('[n]', '[0]')] = param.value.label;
  }
  for (const { prefix, entries } of blocks) {
    entries.forEach((entry, index) => {
      for (const { sub, value } of entry) labels[`${prefix}[${index}][${sub}]`] = value.label;
    });
  }
  return labels;
}
