import type { RowOrigin } from '../model/row-origin.js';
import type { MappedItem, MappingProblem } from './mapped-item.js';
import type { Intent } from '../model/intent.js';
import type { DraftProblem, IntentDraft } from './loaded-mapping.js';
import { checkDraft, locateProblem } from './validate-draft.js';
import { withUncarried } from './uncarried-columns.js';

/**
 * Optional fields never cost a person (docs/mapping.md, "Optional fields"): a user row whose
 * only problems are in fields the platform does not need (a link that is no URL, a phone
 * number, an address without its city, a country it cannot place) is sent without those
 * fields, each reported as a warning. What identifies and names the person — client_id, e-mail, password,
 * first and last name — and any field the mapping marks `required: true` still fail the row.
 *
 * Only user rows: an event without its track or room is a different session on the
 * programme, and a link without one end is no link, so their rows fail as before.
 */

const REQUIRED_USER_PARAMS = new Set(['client_id', 'user[first_name]', 'user[last_name]']);
/** `user[svc_auth_attributes][email]` and its confirmation and password, whatever the vendor word. */
const AUTH_PARAM = /^user\[[^\]]*_auth_attributes\]/;
/** One address: left out whole, since its fields are only meaningful together. */
const ADDRESS_ENTRY = /^(user\[account_attributes\]\[addresses_attributes\]\[\d+\])\[[^\]]+\]$/;
/**
 * One phone entry. Its numbers (work, cell, fax) are each a phone of their own: a bad one is
 * left out alone, and the good one beside it is sent. Only `required: true` binds the entry.
 */
const PHONE_ENTRY = /^(user\[item_attributes\]\[phones_attributes\]\[\d+\])\[[^\]]+\]$/;
const POSITION = 'user[employee_attributes][position]';
const COMPANY = 'user[employee_attributes][company_attributes][name]';

export interface RescuedRow {
  intents: Intent[];
  /** The problems of the fields left out, in the row's order. */
  warnings: DraftProblem[];
}

/**
 * The row's intents without the optional fields its problems concern, or `undefined` when a
 * problem concerns a required field (then the row is invalid, with its problems as they were).
 * Runs only for rows with problems: the hot path never comes here.
 */
export function withoutOptionalFields(
  drafts: readonly IntentDraft[],
  problems: readonly DraftProblem[],
  origin: RowOrigin,
  vendor: string,
): RescuedRow | undefined {
  if (drafts.length === 0) return undefined;
  const current = drafts.map((draft) => ({ ...draft, params: { ...draft.params } }));
  const warnings: DraftProblem[] = [];
  let pending: readonly DraftProblem[] = problems;
  // Leaving a field out can leave another without its partner (a position without its
  // company): a few rounds settle it, each only leaving out more.
  for (let round = 0; round < 4; round++) {
    for (const problem of pending) {
      const draft = optionalOwner(current, problem);
      if (draft === undefined) return undefined;
      leaveOut(draft, problem.param!);
      warnings.push(problem);
    }
    const intents: Intent[] = [];
    const next: DraftProblem[] = [];
    for (const draft of current) {
      const checked = checkDraft(draft, origin, vendor);
      if (checked.ok) intents.push(checked.intent);
      else next.push(...checked.problems);
    }
    if (next.length === 0) return { intents, warnings };
    pending = next;
  }
  return undefined;
}

/**
 * Whether the problem concerns an optional field, one that {@link withoutOptionalFields}
 * would leave out with a warning rather than fail the row for: on a row that fails anyway,
 * such a problem is not the row's reason (mapped-item.ts, `failingProblem`).
 */
export function concernsOptionalField(drafts: readonly IntentDraft[], problem: DraftProblem): boolean {
  return optionalOwner(drafts, problem) !== undefined;
}

/** The user draft whose optional field the problem concerns, if it is one. */
function optionalOwner(drafts: readonly IntentDraft[], problem: DraftProblem): IntentDraft | undefined {
  const param = problem.param;
  if (param === undefined || REQUIRED_USER_PARAMS.has(param) || AUTH_PARAM.test(param)) return undefined;
  const users = drafts.filter((draft) => draft.kind === 'user');
  const owner = users.find((draft) => draft.columns?.[param] !== undefined) ?? users[0];
  if (owner === undefined || isRequired(owner, param)) return undefined;
  return owner;
}

function isRequired(draft: IntentDraft, param: string): boolean {
  const required = draft.required;
  if (required === undefined) return false;
  if (required.has(param)) return true;
  const entry = ADDRESS_ENTRY.exec(param)?.[1] ?? PHONE_ENTRY.exec(param)?.[1];
  if (entry !== undefined) for (const name of required) if (name.startsWith(`${entry}[`)) return true;
  // A position needs its company: a required position keeps the company required.
  return param === COMPANY && required.has(POSITION);
}

/**
 * Removes the field (a whole address, for one of its fields; a position with its company;
 * a phone number alone), and names it `uncarried`, so that the plan does not clear what an
 * earlier run synced: a typo in this export should not erase a good value
 * (docs/sync-engine.md, "Cleared fields").
 */
function leaveOut(draft: IntentDraft, param: string): void {
  const entry = ADDRESS_ENTRY.exec(param)?.[1];
  const names =
    entry !== undefined
      ? Object.keys(draft.params).filter((name) => name.startsWith(`${entry}[`))
      : param === COMPANY
        ? [COMPANY, POSITION]
        : [param];
  if (entry !== undefined && names.length === 0) names.push(param);
  for (const name of names) delete draft.params[name];
  draft.leftOut = [...new Set([...(draft.leftOut ?? []), ...names])];
  draft.failedParams = [...new Set([...(draft.failedParams ?? []), ...names])];
}

/**
 * `row 17 (line 18), social: "@ada" is not an http(s) URL: left out` (a phone number too:
 * its column is named, and the entry's other numbers are sent); for an address, `…: the
 * address left out`. Its code stays the problem's, so warnings group as problems do.
 */
export function leftOutWarning(origin: RowOrigin, problem: DraftProblem): MappingProblem {
  const located = locateProblem(origin, problem);
  const param = problem.param ?? '';
  const what = param.includes('[addresses_attributes]')
    ? 'the address left out'
    : param === COMPANY
      ? 'the company and position left out'
      : 'left out';
  return { ...located, message: `${located.message}: ${what}` };
}

/**
 * The rescued intents, each with the row's warning messages, and as uncarried both the
 * fields left out and those the source's format cannot carry (see uncarried-columns.ts).
 */
export function warnedIntents(
  intents: readonly Intent[],
  warnings: readonly MappingProblem[],
  drafts: readonly IntentDraft[],
  uncarried: readonly string[] | undefined,
): Intent[] {
  const messages = warnings.map((warning) => warning.message);
  return intents.map((intent, index) => {
    const carried = uncarried ? withUncarried(intent, drafts[index]?.columns, uncarried) : intent;
    const merged = [...new Set([...(carried.uncarried ?? []), ...(intent.uncarried ?? [])])];
    return { ...carried, warnings: messages, ...(merged.length > 0 ? { uncarried: merged } : {}) };
  });
}

/** The item with the row's warnings; a repeated row that sends nothing has none to give. */
export function withRowWarnings(item: MappedItem, warnings: MappingProblem[]): MappedItem {
  return (item.type === 'intents' || item.type === 'duplicate') && item.intents.length > 0
    ? { ...item, warnings }
    : item;
}
