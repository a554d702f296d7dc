import { isSecretName } from '../../log/redaction.js';
import type { UnmappedCustomData } from '../mapped-item.js';
import type { IntentSpec, SimpleValueSpec } from '../mapping-file-schema.js';
import { resolveParamName } from '../param-aliases.js';
import { headerWords, isBuyersColumn } from './buyer-columns.js';
import { normalizeColumnName, type ColumnBinder } from './column-binder.js';
import type { CompilableValueSpec } from './compile-value.js';

/** An intent as the compiler takes it: a mapping file's, or one that keeps the unread columns. */
export type BoundIntentSpec = Omit<IntentSpec, 'params'> & { params: Record<string, CompilableValueSpec> };

const CUSTOM_DATA = 'user[account_attributes][profiles_attributes][0][custom_data]';

const SECRET = 'named like a secret: a password or a token must not reach a profile';
const ACCESS_LINK =
  'a link or code that opens a ticket, an order or a check-in: whoever reads the profile could use it';
const IP_ADDRESS = 'an IP address: personal data a profile has no use for';
const BUYERS = "the buyer's, not the ticket holder's: it would reach every holder of the order";
const PAYMENT = 'a payment reference: not a profile’s to show';
const NOT_COPIED = "the mapping's not_custom_data: not the ticket holder's (an order's, say)";

/**
 * Words of a header that name what opens a registration (Tito's `Unique Ticket URL` and
 * `Unique Order URL`, Luma's `qr_code_url`): `url` or `link` beside one of these, or a QR code.
 */
const OPENS = new Set([
  'ticket',
  'order',
  'registration',
  'booking',
  'checkin',
  'check',
  'invoice',
  'receipt',
  'pdf',
]);

/** Why a column is never copied to custom_data, by its header; undefined when it may be. */
function neverCopied(column: string): string | undefined {
  if (isSecretName(column)) return SECRET;
  if (column === '__proto__') return 'not a key a JSON object can hold here';
  const words = headerWords(column);
  const has = (word: string): boolean => words.includes(word);
  if (has('qr') || ((has('url') || has('link')) && words.some((word) => OPENS.has(word)))) return ACCESS_LINK;
  if (has('ip')) return IP_ADDRESS;
  if (['payment', 'receipt', 'transaction', 'invoice'].some(has)) return PAYMENT;
  if (isBuyersColumn(column)) return BUYERS;
  return undefined;
}
const NO_USERS = 'the mapping makes no users';
const TAKEN = "the mapping's custom_data already has a key of that name";

/**
 * The user intents with custom_data also holding every column no param reads, by its header
 * (`What is your T-shirt size?`): a registration's questions kept on the profile
 * (docs/mapping.md, "Columns no mapping reads"), and what was kept, for the notes.
 *
 * The mapping's own custom_data decides how: `{json: …}` gets the columns as further keys,
 * after its own (which win over a column of the same name: that column is left out, and said
 * so); one value (`custom_data: custom_data`, a column holding a JSON object) becomes the
 * base the columns are merged into, its keys first and winning row by row (see
 * `compileValue`); none becomes an object of the columns alone. A column named like a secret
 * (`password`, `ticket secret`, `token`), a link or QR code that opens a ticket or an order,
 * or an IP address is never copied: custom_data is shown on the profile and stored in clear.
 */
export function keepUnmappedColumns(
  intents: readonly IntentSpec[],
  unmapped: readonly string[],
  binder: ColumnBinder,
  vendor: string,
  options: { notCopied?: readonly string[] } = {},
): { intents: BoundIntentSpec[]; report: UnmappedCustomData } {
  const leftOut = new Map<string, string>();
  const candidates: string[] = [];
  // The mapping's own word (`not_custom_data:`), matched as its columns are.
  const named = new Set((options.notCopied ?? []).map(normalizeColumnName));
  for (const column of unmapped) {
    const reason = named.has(normalizeColumnName(column)) ? NOT_COPIED : neverCopied(column);
    if (reason === undefined) candidates.push(column);
    else leftOut.set(column, reason);
  }
  const users = intents.filter((intent) => intent.kind === 'user');
  if (users.length === 0) for (const column of candidates) leftOut.set(column, NO_USERS);
  const kept = new Set<string>();
  let mergedInto: string | undefined;
  const bound = intents.map((intent): BoundIntentSpec => {
    if (intent.kind !== 'user' || candidates.length === 0) return intent;
    const written = Object.keys(intent.params).find(
      (name) => resolveParamName('user', name, vendor) === CUSTOM_DATA,
    );
    const own = written === undefined ? undefined : intent.params[written];
    const fields: Record<string, SimpleValueSpec> =
      own !== undefined && typeof own === 'object' && !Array.isArray(own) && 'json' in own
        ? { ...own.json }
        : {};
    for (const column of candidates) {
      if (Object.hasOwn(fields, column)) {
        if (!kept.has(column)) leftOut.set(column, TAKEN);
        continue;
      }
      fields[column] = { column };
      kept.add(column);
      leftOut.delete(column);
    }
    // In the written param's place: the params' order is the order they are sent and hashed in.
    const params: Record<string, CompilableValueSpec> = { ...intent.params };
    const name = written ?? 'custom_data';
    if (own !== undefined && !(typeof own === 'object' && !Array.isArray(own) && 'json' in own)) {
      mergedInto ??= sourceName(own, binder);
      params[name] = { json: fields, base: own, ...(isRequired(own) ? { required: true } : {}) };
    } else {
      const required = own !== undefined && isRequired(own);
      params[name] = { json: fields, ...(required ? { required: true } : {}) };
    }
    return { ...intent, params };
  });
  const report: UnmappedCustomData = {
    kept: unmapped.filter((column) => kept.has(column)),
    leftOut: unmapped.flatMap((column) => {
      const reason = leftOut.get(column);
      return reason === undefined ? [] : [{ column, reason }];
    }),
  };
  if (mergedInto !== undefined) report.mergedInto = mergedInto;
  return { intents: bound, report };
}

/** The object the columns are merged into, as the notes name it; `undefined` when the source lacks its column. */
function sourceName(spec: SimpleValueSpec, binder: ColumnBinder): string | undefined {
  const ref =
    typeof spec === 'string' || Array.isArray(spec) ? spec : 'column' in spec ? spec.column : undefined;
  if (ref === undefined) return "the JSON object of the mapping's custom_data value";
  const column = binder.resolve(ref);
  return column === undefined ? undefined : `the JSON object in the column ${JSON.stringify(column)}`;
}

function isRequired(spec: unknown): boolean {
  return typeof spec === 'object' && spec !== null && 'required' in spec && spec.required === true;
}
