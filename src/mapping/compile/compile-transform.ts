import { CODE, type ErrorCode } from '../../errors/codes.js';
import { lowerCase } from '../../model/person.js';
import type { RawRecord } from '../../sources/source-row.js';
import type { TransformSpec } from '../mapping-file-schema.js';
import { containsHtml, quote } from '../../platform/write-params/text-rules.js';
import { htmlToXhtml } from '../transforms/html-to-xhtml.js';
import { markdownToXhtml } from '../transforms/markdown-to-xhtml.js';
import { parseDateTime } from '../transforms/parse-date-time.js';
import {
  collapseSpaces,
  phoneDigits,
  splitFullName,
  stripExcelGuards,
  toCountryCode,
} from '../transforms/text-transforms.js';
import { textToXhtml } from '../transforms/xhtml-text.js';
import { countryCode } from '../transforms/country.js';
import { handleUrl, type Network } from '../transforms/handle-url.js';
import { excelPhoneMessage, isExcelScientific } from '../transforms/excel-scientific.js';
import { isTimeZone } from '../../time/time-zone.js';
import type { ColumnBinder } from './column-binder.js';
import type { LookupDefaults } from './lookup-defaults.js';

/** A value on its way through transforms: one text, or a list after `split`. */
export type Value = string | string[];

/** A value that could not be transformed; carried as a value to stay off the exception path. */
export class ValueProblem {
  constructor(
    readonly message: string,
    readonly code: ErrorCode,
  ) {}
}

export type Transform = (value: Value, values: RawRecord) => Value | ValueProblem;

export type TextTransform = (text: string) => string;

/** Simple-named transforms that can fail: not text-to-text, so never fused. */
type CheckedTransform = 'country' | 'digits_and_plus';
type TextTransformName = Exclude<TransformSpec, object | CheckedTransform>;

const TEXT_TRANSFORMS: Record<TextTransformName, TextTransform> = {
  trim: (text) => text.trim(),
  // Never folds a non-ASCII letter into ASCII: the Kelvin sign is no `k` (model/person.ts).
  lower: lowerCase,
  upper: (text) => text.toUpperCase(),
  collapse_spaces: collapseSpaces,
  strip_excel: stripExcelGuards,
  text_to_xhtml: textToXhtml,
  html_to_xhtml: htmlToXhtml,
  markdown_to_xhtml: markdownToXhtml,
  to_xhtml: (text) => (containsHtml(text) ? htmlToXhtml(text) : textToXhtml(text)),
  country_code: (text) => (text === '' ? text : toCountryCode(text)),
  first_name: (text) => splitFullName(text).first,
  last_name: (text) => splitFullName(text).last,
};

/** A text transform that may fail, over a text or each item of a list. */
function eachChecked(transform: (text: string) => string | ValueProblem): Transform {
  return (value) => {
    if (typeof value === 'string') return value === '' ? value : transform(value);
    const out: string[] = [];
    for (const text of value) {
      const one = transform(text);
      if (one instanceof ValueProblem) return one;
      out.push(one);
    }
    return out;
  };
}

function toCountry(text: string): string | ValueProblem {
  const code = countryCode(text);
  if (code !== undefined) return code;
  return new ValueProblem(
    `${quote(text)} is not a country this transform knows (an ISO 3166-1 code or country name)`,
    CODE.MAPPING_UNKNOWN_COUNTRY,
  );
}

/**
 * A phone number as digits, `+` and extension. What is no phone number (letters, a number
 * Excel rounded) is the field's problem, so an optional phone is left out with a warning
 * instead of being sent cut short (`+1-800-FLOWERS` as `+1800`).
 */
function toPhone(text: string): string | ValueProblem {
  if (isExcelScientific(text)) return new ValueProblem(excelPhoneMessage(text), CODE.MAPPING_EXCEL_NUMBER);
  const phone = phoneDigits(text);
  if (phone !== undefined) return phone;
  return new ValueProblem(
    `${quote(text)} is not a phone number: it has letters, or no digits (write the number in digits, an extension as x12)`,
    CODE.MAPPING_NOT_A_PHONE,
  );
}

const CHECKED_TRANSFORMS: Record<CheckedTransform, (text: string) => string | ValueProblem> = {
  country: toCountry,
  digits_and_plus: toPhone,
};

function isChecked(spec: TransformSpec): spec is CheckedTransform {
  return spec === 'country' || spec === 'digits_and_plus';
}

function toHandleUrl(text: string, network: Network): string | ValueProblem {
  const url = handleUrl(text, network);
  if (url !== undefined) return url;
  return new ValueProblem(
    `${quote(text)} is neither a URL nor a ${network} handle`,
    CODE.MAPPING_NOT_A_HANDLE,
  );
}

/** Text-to-text transforms keep their text function, so that a chain of them fuses into one. */
const textOf = new WeakMap<Transform, TextTransform>();

function eachText(transform: TextTransform): Transform {
  const each: Transform = (value) => (typeof value === 'string' ? transform(value) : value.map(transform));
  textOf.set(each, transform);
  return each;
}

/** Where a lookup's defaults are counted (see lookup-defaults.ts), and the column it reads. */
export interface DefaultsTally {
  defaults: LookupDefaults;
  where: string;
}

/**
 * Compiles one transform of a mapping file into a closure, once per source header; a lookup
 * with a default counts the values it gives the default to in `tally`, when given.
 */
export function compileTransform(
  spec: TransformSpec,
  binder: ColumnBinder,
  tally?: DefaultsTally,
): Transform {
  if (isChecked(spec)) return eachChecked(CHECKED_TRANSFORMS[spec]);
  if (typeof spec === 'string') return eachText(TEXT_TRANSFORMS[spec]);
  if ('handle_url' in spec) {
    const network = spec.handle_url;
    return eachChecked((text) => toHandleUrl(text, network));
  }
  if ('split' in spec) {
    const separator = spec.split;
    // `text.split(separator)` with its parts trimmed, without the intermediate array: the
    // separator is never empty (the schema says so).
    const splitInto = (text: string, items: string[]): void => {
      for (let start = 0; start <= text.length;) {
        const at = text.indexOf(separator, start);
        const end = at === -1 ? text.length : at;
        const item = text.slice(start, end).trim();
        if (item !== '') items.push(item);
        start = end + separator.length;
      }
    };
    return (value) => {
      const items: string[] = [];
      if (typeof value === 'string') splitInto(value, items);
      else for (let i = 0; i < value.length; i++) splitInto(value[i]!, items);
      return items;
    };
  }
  if ('join' in spec) {
    const separator = spec.join;
    return (value) => (typeof value === 'string' ? value : value.join(separator));
  }
  if ('default' in spec) {
    const fallback = spec.default;
    return (value) => (value.length === 0 ? fallback : value);
  }
  if ('lookup' in spec) return compileLookup(spec.lookup, tally);
  if ('replace' in spec) {
    const pattern = new RegExp(spec.replace.pattern, 'gi');
    const replacement = spec.replace.with;
    return eachText((text) => text.replace(pattern, replacement));
  }
  return compileDateTime(spec.datetime, binder);
}

function compileLookup(
  lookup: { table: Record<string, string>; default?: string | undefined; before?: string | undefined },
  tally: DefaultsTally | undefined,
): Transform {
  const table = new Map(
    Object.entries(lookup.table).map(([key, value]) => [key.trim().toLowerCase(), value]),
  );
  const fallback = lookup.default;
  const before = lookup.before;
  const defaulted =
    fallback === undefined || tally === undefined ? undefined : tally.defaults.tally(tally.where, fallback);
  const known = Object.keys(lookup.table)
    .slice(0, 6)
    .map((key) => quote(key))
    .join(', ');
  const find = (text: string): string | undefined => {
    const found = table.get(text.trim().toLowerCase());
    if (found !== undefined || before === undefined) return found;
    // pretix writes `Product – Variation`: the text before the separator, cut at the last
    // one first, so that a product whose own name has one is found too.
    for (let at = text.lastIndexOf(before); at > 0; at = text.lastIndexOf(before, at - 1)) {
      const part = table.get(text.slice(0, at).trim().toLowerCase());
      if (part !== undefined) return part;
    }
    return undefined;
  };
  const one = (text: string): string | ValueProblem => {
    if (text === '') return fallback ?? '';
    const found = find(text);
    if (found !== undefined) return found;
    if (fallback !== undefined) {
      defaulted?.(text);
      return fallback;
    }
    return new ValueProblem(
      `${quote(text)} is not in the mapping's lookup table (${known}…)`,
      CODE.MAPPING_LOOKUP_MISS,
    );
  };
  return (value) => {
    if (typeof value === 'string') return one(value);
    const out: string[] = [];
    for (const text of value) {
      const mapped = one(text);
      if (mapped instanceof ValueProblem) return mapped;
      out.push(mapped);
    }
    return out;
  };
}

function compileDateTime(
  options: Extract<TransformSpec, { datetime: unknown }>['datetime'],
  binder: ColumnBinder,
): Transform {
  const zoneReader =
    options.timezone_column === undefined ? undefined : binder.reader(options.timezone_column);
  const zoneLabel = options.timezone_column === undefined ? '' : binder.label(options.timezone_column);
  const fixedZone = options.timezone ?? 'UTC';
  const dateOrder = options.date_order;
  return (value, values) => {
    if (typeof value !== 'string')
      return new ValueProblem('a date-time cannot be a list', CODE.MAPPING_INVALID_DATETIME);
    if (value === '') return value;
    const rowZone = zoneReader?.(values).trim();
    const zone = rowZone ? rowZone : fixedZone;
    if (rowZone && !isTimeZone(rowZone)) {
      return new ValueProblem(
        `the time zone ${quote(rowZone)} in column ${zoneLabel} is not an IANA zone (e.g. Europe/Berlin)`,
        CODE.MAPPING_INVALID_TIMEZONE,
      );
    }
    const parsed = parseDateTime(value, { timezone: zone, dateOrder });
    return parsed.ok ? parsed.value : new ValueProblem(parsed.message, CODE.MAPPING_INVALID_DATETIME);
  };
}

/** Runs a chain of compiled transforms; the first problem stops it. */
export function chain(compiled: readonly Transform[]): Transform | undefined {
  const transforms = fuseTextTransforms(compiled);
  if (transforms.length === 0) return undefined;
  if (transforms.length === 1) return transforms[0];
  return (value, values) => {
    let current: Value | ValueProblem = value;
    for (const transform of transforms) {
      current = transform(current, values);
      if (current instanceof ValueProblem) return current;
    }
    return current;
  };
}

/** `[trim, strip_excel, lower]` becomes one text function: one call and no list check per step. */
function fuseTextTransforms(transforms: readonly Transform[]): Transform[] {
  const fused: Transform[] = [];
  let run: TextTransform[] = [];
  const flush = (): void => {
    if (run.length === 1) fused.push(eachText(run[0]!));
    else if (run.length > 1) fused.push(eachText(composeSteps(run)));
    run = [];
  };
  for (const transform of transforms) {
    const text = textOf.get(transform);
    if (text !== undefined) run.push(text);
    else {
      flush();
      fused.push(transform);
    }
  }
  flush();
  return fused;
}

/**
 * The chain as one text function when every step is a simple text transform (the common
 * case: `[trim, lower]`), else `undefined`. `[]` is the identity.
 */
export function composeText(specs: readonly TransformSpec[]): TextTransform | undefined {
  const steps: TextTransform[] = [];
  for (const spec of specs) {
    if (typeof spec !== 'string' || isChecked(spec)) return undefined;
    steps.push(TEXT_TRANSFORMS[spec]);
  }
  return composeSteps(steps);
}

/**
 * Steps as one function. Two and three steps (`[trim, strip_excel]`, plus a column's own
 * `lower`) are nested calls: every cell of a row goes through here, and a loop over the
 * steps cost a megamorphic call per step.
 */
function composeSteps(steps: readonly TextTransform[]): TextTransform {
  const [first, second, third] = steps;
  if (first === undefined) return (text) => text;
  if (second === undefined) return first;
  if (third === undefined) return (text) => second(first(text));
  if (steps.length === 3) return (text) => third(second(first(text)));
  return (text) => {
    let current = text;
    for (const step of steps) current = step(current);
    return current;
  };
}
