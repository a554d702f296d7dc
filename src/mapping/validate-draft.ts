import { CODE } from '../errors/codes.js';
import { describeOrigin, type RowOrigin } from '../model/row-origin.js';
import type { Intent } from '../model/intent.js';
import { intentDependencies, intentKey, KEY_PARAMS, writeOperation } from './intent-identity.js';
import type { DraftProblem, IntentDraft } from './loaded-mapping.js';
import type { MappingProblem, SyncedHashOf } from './mapped-item.js';
import { validateWriteParams } from '../platform/write-params/validate-write-params.js';
import {
  excelKeyMessage,
  excelPhoneMessage,
  excelScientificIn,
  isExcelScientific,
} from './transforms/excel-scientific.js';

/** `row 17 (line 18), email: "bob@" is not an e-mail address`. */
export function locateProblem(origin: RowOrigin, problem: DraftProblem): MappingProblem {
  const where = describeOrigin(origin);
  const located: MappingProblem = {
    field: problem.field,
    message:
      problem.field === ''
        ? `${where}: ${problem.message}`
        : `${where}, ${problem.field}: ${problem.message}`,
    code: problem.code,
  };
  if (problem.param !== undefined) located.param = problem.param;
  return located;
}

/**
 * The problem with the place its value came from, when another file gave it (`filledFrom`,
 * see `SourceRow.filledFrom`): `"jordan@" is not an e-mail address (as given in row 2
 * (line 3) of CSV file speakers.csv)`, so that the fix is made where the value is.
 */
export function withValueSource(
  problem: DraftProblem,
  filledFrom: Readonly<Record<string, string>> | undefined,
): DraftProblem {
  // An own column only: a field named like an object's built-in (`constructor`) is not one.
  const where =
    filledFrom !== undefined && Object.hasOwn(filledFrom, problem.field)
      ? filledFrom[problem.field]
      : undefined;
  return where === undefined ? problem : { ...problem, message: `${problem.message} (as given in ${where})` };
}

/** Every param name that can make up a kind's key, split once. */
const KEY_PARAM_NAMES = Object.fromEntries(
  Object.entries(KEY_PARAMS).map(([kind, names]) => [kind, names.flatMap((name) => name.split('|'))]),
) as Record<keyof typeof KEY_PARAMS, string[]>;

/**
 * The keys of a failed row's drafts, when every one can be read and no problem or failed
 * transform concerns a param it is made of; `undefined` otherwise (a key that may be wrong
 * must not stand for the row).
 */
export function readableKeys(
  drafts: readonly IntentDraft[],
  problems: readonly DraftProblem[],
): Array<{ kind: Intent['kind']; key: string }> | undefined {
  const keys: Array<{ kind: Intent['kind']; key: string }> = [];
  for (const draft of drafts) {
    const key = draft.key ?? intentKey(draft.kind, draft.params);
    const keyParams = KEY_PARAM_NAMES[draft.kind];
    const concernsKey = (param: string | undefined): boolean =>
      param !== undefined && keyParams.includes(param);
    if (key === undefined) return undefined;
    if (problems.some((p) => concernsKey(p.param)) || (draft.failedParams ?? []).some(concernsKey)) {
      return undefined;
    }
    keys.push({ kind: draft.kind, key });
  }
  return keys.length > 0 ? keys : undefined;
}

export type DraftCheck = { ok: true; intent: Intent } | { ok: false; problems: DraftProblem[] };

/**
 * Turns a draft into an intent: its key, its dependencies, and every write-param rule of
 * the spec checked at once. Problems name the source column a bad param came from.
 */
export function checkDraft(draft: IntentDraft, origin: RowOrigin, vendor: string): DraftCheck {
  const issues = validateWriteParams(
    writeOperation(draft.kind, draft.op),
    draft.params,
    draft.jsonObjects === undefined ? { vendor } : { vendor, jsonObjects: draft.jsonObjects },
  );
  const failed = draft.failedParams ?? [];
  const problems: DraftProblem[] = [];
  for (const issue of issues) {
    // A param whose transform failed is absent: its problem says why, "is required" would
    // say it again, wrongly.
    if (failed.includes(issue.param)) continue;
    const field = columnOf(draft, issue.param, issue.message);
    const absent = issue.code === CODE.REQUIRED ? draft.absentColumns?.get(field) : undefined;
    problems.push(
      absent === undefined
        ? { field, param: issue.param, message: issue.message, code: issue.code }
        : { field, param: issue.param, message: absent, code: CODE.MAPPING_COLUMN_MISSING },
    );
  }
  const keyParams = KEY_PARAM_NAMES[draft.kind];
  // `for…in`, not `Object.entries`: no array per param on the hot path of every row.
  for (const param in draft.params) {
    const value = draft.params[param] ?? '';
    const problem = unstorableText(value);
    if (problem !== undefined) {
      problems.push({
        field: columnOf(draft, param),
        param,
        message: problem,
        code: CODE.MAPPING_UNSTORABLE_TEXT,
      });
    }
    const excel = excelNumberProblem(param, value, keyParams);
    if (excel !== undefined) {
      problems.push({
        field: columnOf(draft, param),
        param,
        message: excel,
        code: CODE.MAPPING_EXCEL_NUMBER,
      });
    }
  }
  const key = draft.key ?? intentKey(draft.kind, draft.params);
  const keyProblem = draft.key === undefined ? undefined : unstorableText(draft.key);
  if (keyProblem !== undefined)
    problems.push({
      field: draft.keyLabel ?? 'key',
      message: keyProblem,
      code: CODE.MAPPING_UNSTORABLE_TEXT,
    });
  const keyNumber = draft.key === undefined ? undefined : excelScientificIn(draft.key);
  if (keyNumber !== undefined)
    problems.push({
      field: draft.keyLabel ?? 'key',
      message: excelKeyMessage(draft.key!, keyNumber),
      code: CODE.MAPPING_EXCEL_NUMBER,
    });
  if (
    key === undefined &&
    !problems.some((p) => isKeyParam(keyParams, p.param)) &&
    !failed.some((param) => isKeyParam(keyParams, param))
  ) {
    problems.push(noKeyProblem(draft, keyParams));
  }
  if (problems.length > 0 || key === undefined) return { ok: false, problems };
  return { ok: true, intent: intentOf(draft, key, origin) };
}

/** A draft's intent under its key, once it may go. */
function intentOf(draft: IntentDraft, key: string, origin: RowOrigin): Intent {
  const intent: Intent = {
    kind: draft.kind,
    key,
    op: draft.op,
    params: draft.params,
    origin,
    dependsOn: intentDependencies(draft.kind, draft.params),
  };
  // Set apart, not spread into the literal: every valid row of every run is built here.
  if (draft.leftOut !== undefined) intent.uncarried = draft.leftOut;
  return intent;
}

/**
 * The intent of a draft whose params the ledger holds as synced under its key, unchanged
 * (`MapSourceOptions.syncedHash`): the same intent as {@link checkDraft} makes, without
 * checking the params again. They were checked when they were sent, and the platform took
 * them; a nightly run finds most rows so, and the checks were the largest share of its
 * mapping. Undefined when the draft has no key, a failed transform, or another hash.
 */
export function syncedIntent(
  draft: IntentDraft,
  origin: RowOrigin,
  syncedHash: SyncedHashOf,
): Intent | undefined {
  if (draft.failedParams !== undefined) return undefined;
  const key = draft.key ?? intentKey(draft.kind, draft.params);
  if (key === undefined) return undefined;
  const hash = syncedHash(draft.kind, key, draft.op, draft.params);
  if (hash === undefined) return undefined;
  const intent = intentOf(draft, key, origin);
  intent.knownHash = { params: draft.params, op: draft.op, hash };
  return intent;
}

/**
 * A key or a phone number that Excel rounded into scientific notation (`2.36021E+11`): a key
 * so rounded is shared by other people, a phone so rounded is no number to call. A key's
 * problem fails the row; a phone's is an optional field's, left out with a warning
 * (optional-fields.ts). Nearly every value has no `+` past its first character and costs
 * one native search.
 */
function excelNumberProblem(param: string, value: string, keyParams: readonly string[]): string | undefined {
  if (value.indexOf('+', 1) === -1) return undefined;
  if (keyParams.includes(param)) {
    const number = excelScientificIn(value);
    return number === undefined ? undefined : excelKeyMessage(value, number);
  }
  return param.includes('[phones_attributes]') && isExcelScientific(value)
    ? excelPhoneMessage(value)
    : undefined;
}

/** NUL, or a UTF-16 surrogate without its pair. */
// eslint-disable-next-line no-control-regex -- NUL is what is looked for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a value cannot be sent or stored, or undefined. PostgreSQL text (the ledger, and a
 * PostgreSQL source) cannot hold NUL, and a lone surrogate is no character at all: such a
 * value is its row's problem, reported by `validate` and `run` alike, never a ledger
 * write that stops the run (docs/ledger.md). The value is never quoted: it may be a password.
 */
export function unstorableText(value: string): string | undefined {
  // Every value of every row passes here: two native scans answer for nearly all of them.
  if (value.isWellFormed() && !value.includes('\u0000')) return undefined;
  const found = UNSTORABLE.exec(value);
  if (found === null) return undefined;
  const at = `at character ${charPosition(value, found.index)}`;
  return found[0] === '\u0000'
    ? `the value holds a NUL character (U+0000) ${at}, which cannot be sent or stored: remove it from the source`
    : `the value holds half of a UTF-16 surrogate pair (U+${found[0].charCodeAt(0).toString(16).toUpperCase()}) ${at}, which is not a character: fix the text in the source`;
}

/** 1-based position in code points (as a person counts), of the UTF-16 index `index`. */
function charPosition(value: string, index: number): number {
  return Array.from(value.slice(0, index)).length + 1;
}

/**
 * A draft without its key: when the mapping reads the key from a column, that column is
 * empty on this row (the row is to fix, not the mapping); otherwise the mapping lacks it.
 */
function noKeyProblem(draft: IntentDraft, keyParams: readonly string[]): DraftProblem {
  const mapped =
    draft.keyLabel ?? keyParams.map((param) => draft.columns?.[param]).find((column) => column !== undefined);
  const absent = mapped === undefined ? undefined : draft.absentColumns?.get(mapped);
  if (mapped !== undefined && absent !== undefined)
    return { field: mapped, message: absent, code: CODE.MAPPING_COLUMN_MISSING };
  if (mapped !== undefined) {
    const what = keyParams.length === 0 ? 'its key' : `its ${keyParams.join(' or ')}`;
    return {
      field: mapped,
      message: `the value is empty on this row, but ${withArticle(draft.kind)} needs ${what} to be tracked between runs: fill it in the source`,
      code: CODE.MAPPING_NO_KEY,
    };
  }
  return {
    field: keyParams.length === 0 ? 'key' : columnOf(draft, keyParams[0] ?? ''),
    message: `${withArticle(draft.kind)} needs ${KEY_PARAMS[draft.kind].join(' and ') || 'a key'} to be tracked between runs: map it`,
    code: CODE.MAPPING_NO_KEY,
  };
}

/** `an event`, but `a user`: its u is said "you". */
function withArticle(kind: string): string {
  return /^[aeio]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

// A module function, not a closure per row: under tsx every named closure is also renamed
// with a defineProperty call when it is created.
function isKeyParam(keyParams: readonly string[], param: string | undefined): boolean {
  return param !== undefined && keyParams.includes(param);
}

/**
 * The column a param came from: `[3]` of a list param is found under its `[n]` name; for a
 * param the mapping does not set ("one of speaker[user_id], speaker[user_client_id] is
 * required"), the column of a mapped param the message names.
 */
export function columnOf(draft: IntentDraft, param: string, message = ''): string {
  const columns = draft.columns;
  if (columns === undefined) return param;
  const direct = columnOfName(columns, param);
  if (direct !== undefined) return direct;
  // Whole names only: `client_id` is inside `speaker[user_client_id]`, yet another param.
  for (const name of paramNamesIn(message)) {
    const column = name === param ? undefined : columnOfName(columns, name);
    if (column !== undefined) return column;
  }
  return param;
}

function columnOfName(columns: Record<string, string>, name: string): string | undefined {
  if (Object.hasOwn(columns, name)) return columns[name];
  const listName = name.replace(/\[\d+\]/, '[n]');
  return Object.hasOwn(columns, listName) ? columns[listName] : undefined;
}

/** A param name: a word, then any `[…]` parts (`speaker[user_client_id]`, `event_client_ids[0]`). */
const PARAM_NAME = /[A-Za-z_]\w*(?:\[[^\]\s"]*\])*/g;
/** A quoted value (`quote()` writes JSON strings): a value is not a param name. */
const QUOTED = /"(?:[^"\\]|\\.)*"/g;

/** The param names a message mentions, in order (only on the error path: a row's problem). */
function paramNamesIn(message: string): string[] {
  return message.replace(QUOTED, ' ').match(PARAM_NAME) ?? [];
}
