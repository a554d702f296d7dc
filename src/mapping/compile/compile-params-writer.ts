import type { FlatParams } from '../../model/params.js';
import type { RawRecord } from '../../sources/source-row.js';
import type { DraftProblem } from '../loaded-mapping.js';
import { cellText } from './column-binder.js';
import { ValueProblem, type TextTransform, type Value } from './compile-transform.js';
import type { CompiledValue } from './compile-value.js';

/** One `params:` entry of an intent, compiled. */
export interface ParamPlan {
  name: string;
  /** `[n]` in the name: a list value becomes one param per item. */
  indexed: boolean;
  value: CompiledValue;
}

/** An `addresses:` or `phones:` block: its entries, and each index's full param names. */
export interface BlockPlan {
  /** `names[index][sub]`: `…[addresses_attributes][0][city]`. */
  names: ReadonlyArray<Record<string, string>>;
  entries: ReadonlyArray<ReadonlyArray<{ sub: string; value: CompiledValue }>>;
}

/** Reads a row's params (in mapping order), pushing the problems of values that failed. */
export type ParamsWriter = (values: RawRecord, problems: DraftProblem[]) => FlatParams;

// An index can only be as high as the entries before it; past this many entries a block
// stores by computed name instead of one branch per possible index.
const MAX_UNROLLED_ENTRIES = 8;

/**
 * Compiles the params and blocks of an intent into one generated function, once per
 * source header. Why generated code: a row's values are read and its params written by
 * names that are fixed at bind time, and written as literals they become plain property
 * accesses that V8 caches per site. Read and written through variables (as a loop over the
 * params must), every access goes through one shared, megamorphic lookup, and building the
 * params object cost more than all the transforms.
 *
 * Only names go into the code, each as a JSON string literal (no value of a row or of the
 * mapping file is ever code); `obj["__proto__"] = v` means what `obj[name] = v` meant.
 * Param and column values keep their compiled closures and transforms, passed in as data.
 */
export function compileParamsWriter(
  params: readonly ParamPlan[],
  blocks: readonly BlockPlan[],
): ParamsWriter {
  const reads: Array<CompiledValue['read']> = [];
  const texts: TextTransform[] = [];
  const labels: string[] = [];
  const names: Array<string | ReadonlyArray<Record<string, string>>> = [];
  const body: string[] = ['const out = {};', 'let c, v, t, filled, index;'];

  /** Registers a value's closures; returns the code that leaves its text (or list, or problem) in `v`. */
  const readInto = (value: CompiledValue, problemCode: (slot: number) => string): string => {
    const slot = reads.length;
    reads.push(value.read);
    texts.push(value.direct?.text ?? identity);
    labels.push(value.label);
    const direct = value.direct;
    if (direct === undefined) {
      return `v = R[${slot}](values); if (v instanceof P) { ${problemCode(slot)} v = ''; }`;
    }
    if (direct.column === undefined) return `v = '';`;
    // Simple text transforms keep empty text empty: an empty cell skips them.
    return (
      `c = values[${literal(direct.column)}]; if (typeof c !== 'string') c = cellText(c); ` +
      `v = c === '' ? c : T[${slot}](c);`
    );
  };

  for (const param of params) {
    const nameSlot = names.push(param.name) - 1;
    const problem = (slot: number): string =>
      `problems.push({ field: L[${slot}], param: N[${nameSlot}], message: v.message, code: v.code });`;
    if (param.indexed) {
      body.push(`${readInto(param.value, problem)} writeIndexed(out, N[${nameSlot}], v);`);
      continue;
    }
    const key = literal(param.name);
    const read = readInto(param.value, problem);
    if (read === `v = '';`) continue;
    body.push(
      `${read} if (typeof v === 'string') { if (v !== '') out[${key}] = v; } ` +
        `else if (v.length > 0) out[${key}] = v.join(',');`,
    );
  }

  for (const block of blocks) {
    const namesSlot = names.push(block.names) - 1;
    body.push('index = 0;');
    block.entries.forEach((entry, entryIndex) => {
      body.push('filled = false;');
      for (const { sub, value } of entry) {
        const subKey = literal(sub);
        const problem = (slot: number): string =>
          `problems.push({ field: L[${slot}], param: N[${namesSlot}][index][${subKey}], message: v.message, code: v.code });`;
        // A problem is reported and the sub-field left out, as an empty one would be.
        const read = readInto(value, problem);
        if (read === `v = '';`) continue;
        body.push(
          `${read} t = typeof v === 'string' ? v : v.join(','); ` +
            `if (t !== '') { ${storeAtIndex(block, entryIndex, sub, namesSlot)} filled = true; }`,
        );
      }
      // An address or phone left all empty is no address at all: the index is not used.
      body.push('if (filled) index++;');
    });
  }
  body.push('return out;');

  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- names are JSON string literals only, see above
  const factory = new Function(
    'R',
    'T',
    'L',
    'N',
    'P',
    'cellText',
    'writeIndexed',
    `return function writeParams(values, problems) {\n${body.join('\n')}\n};`,
  ) as (...args: unknown[]) => ParamsWriter;
  return factory(reads, texts, labels, names, ValueProblem, cellText, writeIndexed);
}

/** `out[…][2][city] = t` with the index a literal in each branch: an index is at most the entry's position. */
function storeAtIndex(block: BlockPlan, entryIndex: number, sub: string, namesSlot: number): string {
  const computed = `out[N[${namesSlot}][index][${literal(sub)}]] = t;`;
  if (entryIndex >= MAX_UNROLLED_ENTRIES) return computed;
  const cases: string[] = [];
  for (let index = 0; index <= entryIndex; index++) {
    const name = block.names[index]?.[sub];
    if (name === undefined) return computed;
    cases.push(`case ${index}: out[${literal(name)}] = t; break;`);
  }
  // The first entry always lands at index 0.
  if (entryIndex === 0) return `out[${literal(block.names[0]![sub]!)}] = t;`;
  return `switch (index) { ${cases.join(' ')} }`;
}

/** `event_client_ids[n]`: one param per item of a list, `[0]` for a single text. */
function writeIndexed(out: FlatParams, name: string, value: Value): void {
  if (typeof value === 'string') {
    if (value !== '') out[name.replace('[n]', '[0]')] = value;
    return;
  }
  value.forEach((item, index) => {
    out[name.replace('[n]', `[${index}]`)] = item;
  });
}

function literal(name: string): string {
  return JSON.stringify(name);
}

const identity: TextTransform = (text) => text;
