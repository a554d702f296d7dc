import type { RawRecord } from '../../sources/source-row.js';
import type { ConditionSpec } from '../mapping-file-schema.js';
import { quote } from '../../platform/write-params/text-rules.js';
import type { ColumnBinder } from './column-binder.js';

/**
 * `undefined` when the row meets the condition; otherwise why it does not, for the skip
 * record. A compiled `present: true` condition is marked `requiresValue`: a row it leaves
 * out lacks data, rather than being filtered out on purpose.
 */
export type CompiledCondition = ((values: RawRecord) => string | undefined) & { requiresValue?: boolean };

const fold = (text: string): string => text.trim().toLowerCase();

/** Compares ignoring case and surrounding spaces: exports write `Refunded` and `refunded`. */
export function compileCondition(spec: ConditionSpec, binder: ColumnBinder): CompiledCondition {
  const read = binder.reader(spec.column);
  const label = binder.label(spec.column);
  // A column the source lacks is said as such, not as an empty value on every row.
  const absent = binder.absence(spec.column);
  const test = predicate(spec);
  const condition: CompiledCondition = (values) => {
    const value = read(values);
    if (test(fold(value))) return undefined;
    const fact = value.trim() === '' ? (absent ?? `${label} is empty`) : `${label} is ${quote(value.trim())}`;
    return spec.reason === undefined ? fact : `${spec.reason} (${fact})`;
  };
  // A column the source lacks fails a condition that an empty value fails on every row:
  // the rows lack data, they are not filtered out on purpose (exit 1, not 0).
  if ((isPresenceTest(spec) && spec.present !== false) || (absent !== undefined && !test('')))
    condition.requiresValue = true;
  return condition;
}

function isPresenceTest(spec: ConditionSpec): boolean {
  return (
    spec.equals === undefined &&
    spec.not_equals === undefined &&
    spec.in === undefined &&
    spec.not_in === undefined &&
    spec.matches === undefined
  );
}

function predicate(spec: ConditionSpec): (folded: string) => boolean {
  if (spec.equals !== undefined) {
    const expected = fold(spec.equals);
    return (value) => value === expected;
  }
  if (spec.not_equals !== undefined) {
    const refused = fold(spec.not_equals);
    return (value) => value !== refused;
  }
  if (spec.in !== undefined) {
    const set = new Set(spec.in.map(fold));
    return (value) => set.has(value);
  }
  if (spec.not_in !== undefined) {
    const set = new Set(spec.not_in.map(fold));
    return (value) => !set.has(value);
  }
  if (spec.matches !== undefined) {
    const pattern = new RegExp(spec.matches, 'i');
    return (value) => pattern.test(value);
  }
  const wanted = spec.present ?? true;
  return (value) => (value !== '') === wanted;
}
