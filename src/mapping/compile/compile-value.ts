import type { RawRecord } from '../../sources/source-row.js';
import type { SimpleValueSpec, TransformSpec, ValueSpec } from '../mapping-file-schema.js';
import type { CellReader, ColumnBinder } from './column-binder.js';
import type { OccurrenceCounter } from './occurrence-counter.js';
import type { LookupDefaults } from './lookup-defaults.js';
import { CustomDataOverrides } from './custom-data-overrides.js';
import { bareColumn, structuredCell } from './structured-cell.js';
import { cellText } from './column-binder.js';
import { CODE } from '../../errors/codes.js';
import { parseJsonObject, type JsonObject } from '../../platform/write-params/json-object.js';
import { quote } from '../../platform/write-params/text-rules.js';
import {
  chain,
  compileTransform,
  composeText,
  ValueProblem,
  type DefaultsTally,
  type TextTransform,
  type Transform,
  type Value,
} from './compile-transform.js';

/** A compiled value of a param: how to read it from a row, and what to call it in messages. */
export interface CompiledValue {
  read: (values: RawRecord) => Value | ValueProblem;
  /** The source column (or template) the value comes from. */
  label: string;
  /**
   * Set when the value is one column through simple text transforms (the common case):
   * the column's name in the source (`undefined` when the source lacks it, so the value is
   * always empty) and the transforms as one function, which leaves empty text empty. Lets
   * compiled code read the cell by name instead of calling {@link read}.
   */
  direct?: { column: string | undefined; text: TextTransform };
}

/** What every column read goes through first (the mapping's `preprocess`). */
export interface CompileContext {
  binder: ColumnBinder;
  preprocess: Transform | undefined;
  /** Whether the preprocess leaves empty text empty (it has no `default` or `lookup`). */
  preprocessKeepsEmpty: boolean;
  /** The preprocess as one text function, when it is made of simple text transforms only. */
  preprocessText: TextTransform | undefined;
  /** Counts of `{#Column}` placeholders, per bound header (see occurrence-counter.ts). */
  occurrences?: OccurrenceCounter;
  /** The values lookups gave their default to, per bound header (see lookup-defaults.ts). */
  lookupDefaults?: LookupDefaults;
  /** What merged custom_data objects won over a column, per bound header (see custom-data-overrides.ts). */
  customDataOverrides?: CustomDataOverrides[];
}

/**
 * `{json: …}` over a value holding a JSON object (the mapping's own custom_data column):
 * what `custom_data: { columns: all_unmapped }` makes of a mapping whose custom_data is one
 * column (see unmapped-custom-data.ts). Never written in a mapping file.
 */
export interface MergedJsonSpec {
  json: Record<string, SimpleValueSpec>;
  /** Its object's keys come first and win over a field of the same name. */
  base: SimpleValueSpec;
  required?: boolean;
}

/** A value as the compiler takes it. */
export type CompilableValueSpec = ValueSpec | MergedJsonSpec;

/**
 * Most cells are empty, and only `default` and `lookup` turn empty text into a value:
 * without them a chain is skipped for an empty cell.
 */
export function keepsEmpty(specs: readonly TransformSpec[] | undefined): boolean {
  return (specs ?? []).every((spec) => typeof spec === 'string' || !('default' in spec || 'lookup' in spec));
}

export function compileTransforms(
  specs: readonly TransformSpec[] | undefined,
  binder: ColumnBinder,
  tally?: DefaultsTally,
): Transform | undefined {
  return chain((specs ?? []).map((spec) => compileTransform(spec, binder, tally)));
}

/** A column read with the preprocess chain applied. */
function columnText(
  ref: SimpleColumnRef,
  context: CompileContext,
): (values: RawRecord) => Value | ValueProblem {
  const read: CellReader = context.binder.reader(ref);
  const pre = context.preprocess;
  if (pre === undefined) return read;
  if (!context.preprocessKeepsEmpty) return (values) => pre(read(values), values);
  return (values) => {
    const text = read(values);
    return text === '' ? text : pre(text, values);
  };
}
type SimpleColumnRef = string | string[];

export function compileValue(spec: CompilableValueSpec, context: CompileContext): CompiledValue {
  if (typeof spec !== 'string' && !Array.isArray(spec) && 'json' in spec)
    return 'base' in spec ? compileMergedJson(spec, context) : compileJson(spec.json, context);
  return compileSimpleValue(spec, context);
}

export function compileSimpleValue(spec: SimpleValueSpec, context: CompileContext): CompiledValue {
  if (typeof spec === 'string' || Array.isArray(spec)) spec = { column: spec };
  if ('column' in spec) {
    const fast = compileTextColumn(spec.column, spec.transforms ?? [], context);
    if (fast !== undefined) return fast;
  }
  let base: (values: RawRecord) => Value | ValueProblem;
  let label: string;
  if ('column' in spec) {
    base = columnText(spec.column, context);
    label = context.binder.label(spec.column);
  } else if ('first_of' in spec) {
    const choices = spec.first_of.map((choice) => compileSimpleValue(choice, context));
    base = (values) => {
      for (const choice of choices) {
        const value = choice.read(values);
        if (value instanceof ValueProblem || value.length > 0) return value;
      }
      return '';
    };
    label = choices.map((choice) => choice.label).join(' / ');
  } else if ('template' in spec) {
    base = compileTemplate(spec.template, context);
    label = templateLabel(spec.template, context);
  } else {
    const constant = String(spec.const);
    base = () => constant;
    label = 'constant';
  }
  const defaults = context.lookupDefaults;
  const post = compileTransforms(
    spec.transforms,
    context.binder,
    defaults === undefined ? undefined : { defaults, where: label },
  );
  if (post === undefined) return { read: base, label };
  const skipEmpty = keepsEmpty(spec.transforms);
  return {
    label,
    read: (values) => {
      const value = base(values);
      if (value instanceof ValueProblem || (skipEmpty && value === '')) return value;
      return post(value, values);
    },
  };
}

/**
 * `eb-{Attendee #}`: placeholders read columns (`{A|B}` tries aliases). When any
 * placeholder is empty the whole template is empty, so that a row without an attendee
 * number yields no `eb-` client_id rather than a wrong one.
 */
function compileTemplate(
  template: string,
  context: CompileContext,
): (values: RawRecord) => Value | ValueProblem {
  const parts: Array<string | ((values: RawRecord) => Value | ValueProblem)> = [];
  const pattern = /\{([^{}]+)\}/g;
  let last = 0;
  for (let match = pattern.exec(template); match; match = pattern.exec(template)) {
    if (match.index > last) parts.push(template.slice(last, match.index));
    const placeholder = (match[1] ?? '').trim();
    const aliases = placeholder
      .replace(/^#/, '')
      .split('|')
      .map((alias) => alias.trim());
    if (placeholder.startsWith('#') && context.occurrences !== undefined)
      parts.push(context.occurrences.register(aliases));
    else parts.push(columnText(aliases, context));
    last = pattern.lastIndex;
  }
  if (last < template.length) parts.push(template.slice(last));
  return (values) => {
    let text = '';
    for (const part of parts) {
      if (typeof part === 'string') {
        text += part;
        continue;
      }
      const value = part(values);
      if (value instanceof ValueProblem) return value;
      const piece = typeof value === 'string' ? value : value.join(',');
      if (piece === '') return '';
      text += piece;
    }
    return text;
  };
}

/**
 * `eb-{Attendee #}` for `eb-{Attendee #|Attendee no.}`: each placeholder as the column the
 * source has, so that a message names the column to fix rather than the list of aliases.
 */
function templateLabel(template: string, context: CompileContext): string {
  return template.replace(/\{([^{}]+)\}/g, (_, placeholder: string) => {
    const count = placeholder.trim().startsWith('#') ? '#' : '';
    const aliases = placeholder.trim().replace(/^#/, '').split('|');
    return `{${count}${context.binder.label(aliases.map((alias) => alias.trim()))}}`;
  });
}

/** `custom_data`: a JSON object of the non-empty values; empty when all are. */
function compileJson(fields: Record<string, SimpleValueSpec>, context: CompileContext): CompiledValue {
  const entries = compileFields(fields, context);
  return {
    label: entries.map((field) => field.label).join(', '),
    read: (values) => {
      const object: JsonObject = {};
      let empty = true;
      for (const { key, read } of entries) {
        const result = read(values);
        if (result instanceof ValueProblem) return new ValueProblem(`${key}: ${result.message}`, result.code);
        if (isEmptyValue(result)) continue;
        object[key] = result;
        empty = false;
      }
      return empty ? '' : JSON.stringify(object);
    },
  };
}

interface JsonField {
  key: string;
  label: string;
  /** The value: text (or a list), or a cell's own JSON value (see structured-cell.ts). */
  read: (values: RawRecord) => unknown;
}

/**
 * The keys of a JSON object: a key reading one column as it is keeps a cell the source
 * handed over as JSON (a `jsonb` object, a number, a boolean) as that JSON, not as its text:
 * custom_data is a JSON object on the platform, and `{"prefs":"{\"size\":\"M\"}"}` is
 * of no use to anyone there.
 */
function compileFields(fields: Record<string, SimpleValueSpec>, context: CompileContext): JsonField[] {
  return Object.entries(fields).map(([key, spec]) => {
    const value = compileSimpleValue(spec, context);
    const ref = bareColumn(spec);
    const column = ref === undefined ? undefined : context.binder.resolve(ref);
    if (column === undefined) return { key, label: value.label, read: value.read };
    const text = value.read;
    return {
      key,
      label: value.label,
      read: (values) => {
        const cell = values[column];
        if (typeof cell === 'string') return text(values);
        return structuredCell(cell) ?? text(values);
      },
    };
  });
}

/** Empty text, an empty list: left out of the object, as the mapping reads an empty cell. */
function isEmptyValue(value: unknown): boolean {
  return value === '' || (Array.isArray(value) && value.length === 0);
}

/**
 * {@link MergedJsonSpec}: the base's JSON object with the fields' non-empty values added
 * after its keys. A key both fill keeps the base's value, counted for a note when the
 * field's differs. A base that is no JSON object is a problem of the param, as it is
 * without fields (then custom_data is left out with a warning, the row still sent): a merge
 * never drops the object in silence.
 */
function compileMergedJson(spec: MergedJsonSpec, context: CompileContext): CompiledValue {
  const base = compileSimpleValue(spec.base, context);
  const entries = compileFields(spec.json, context);
  const overrides = new CustomDataOverrides(quote(base.label));
  (context.customDataOverrides ??= []).push(overrides);
  return {
    label: [base.label, ...entries.map((field) => field.label)].join(', '),
    read: (values) => {
      const own = base.read(values);
      if (own instanceof ValueProblem) return own;
      const text = typeof own === 'string' ? own : own.join(',');
      let object: JsonObject = {};
      let empty = true;
      if (text !== '') {
        const parsed = parseJsonObject(text);
        if ('problem' in parsed) return new ValueProblem(parsed.problem, CODE.INVALID_JSON_OBJECT);
        object = parsed.object;
        empty = false;
      }
      for (const { key, read } of entries) {
        const result = read(values);
        if (result instanceof ValueProblem) return new ValueProblem(`${key}: ${result.message}`, result.code);
        if (isEmptyValue(result)) continue;
        if (Object.hasOwn(object, key)) {
          if (!sameValue(object[key], result)) overrides.count(key, values);
          continue;
        }
        object[key] = result;
        empty = false;
      }
      return empty ? '' : JSON.stringify(object);
    },
  };
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The hot path: a column whose preprocess and transforms are all simple text transforms
 * reads as one closure, one property access and one composed function per row.
 */
function compileTextColumn(
  ref: SimpleColumnRef,
  transforms: readonly TransformSpec[],
  context: CompileContext,
): CompiledValue | undefined {
  const post = composeText(transforms);
  const pre = context.preprocess === undefined ? (text: string) => text : context.preprocessText;
  if (post === undefined || pre === undefined) return undefined;
  const label = context.binder.label(ref);
  const column = context.binder.resolve(ref);
  const text = transforms.length === 0 ? pre : (value: string) => post(pre(value));
  if (column === undefined) return { label, read: () => '', direct: { column, text } };
  return {
    label,
    direct: { column, text },
    read: (values) => {
      const raw = values[column];
      const cell = typeof raw === 'string' ? raw : cellText(raw);
      // Simple text transforms keep empty text empty.
      return cell === '' ? cell : text(cell);
    },
  };
}
