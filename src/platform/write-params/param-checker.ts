import { CODE } from '../../errors/codes.js';
import type { FlatParams } from '../../model/params.js';
import { isCountryCode } from './country-codes.js';
import { compareXmlDateTimes, parseXmlDateTime } from './datetime.js';
import type { XmlDateTime } from './datetime.js';
import { isEmail } from './email.js';
import { isHttpUrl } from './http-url.js';
import {
  charLength,
  codePointHex,
  isBlank,
  isNonNegativeIntegerText,
  isPositiveIntegerText,
  quote,
} from './text-rules.js';
import type { WriteParamIssue, WriteParamIssueCode } from './write-param-issue.js';
import { checkWellFormedXhtml } from './xhtml.js';
import { IndexedGroups } from './indexed-groups.js';
import type { IndexedName } from './indexed-groups.js';

/** `create` checks every rule; `update` only the params that are sent (spec 4.2 rule 3). */
export type CheckMode = 'create' | 'update';

/** One `[n]` entry of an indexed group: its index and its sub-fields' full param names. */
export interface IndexedEntry {
  index: string;
  fields: Map<string, string>;
}

/**
 * Reads one request's flat params and collects issues. Each check reports under the param
 * it is about and goes on, so one pass reports every problem. Optional params with a blank
 * value are not format-checked: blank means "clear it" (and is not even signed, spec §5).
 */
export class ParamChecker {
  readonly issues: WriteParamIssue[] = [];
  /** The param names, read once: indexed groups scan them several times per request. */
  readonly names: readonly string[];

  /**
   * @param groups the indexed groups the operation reads; names in them are sorted out in
   * one pass. Asking for a group not listed here still works, by a slower scan.
   */
  constructor(
    readonly params: FlatParams,
    readonly mode: CheckMode = 'create',
    private readonly groups?: IndexedGroups,
    /** Params known to hold a JSON object (see `ValidateWriteParamsOptions.jsonObjects`). */
    readonly jsonObjects?: ReadonlySet<string>,
  ) {
    this.names = Object.keys(params);
  }

  get(name: string): string | undefined {
    // Values are strings; anything else found (an inherited `constructor`, `__proto__`) is not a param.
    const value: unknown = this.params[name];
    return typeof value === 'string' ? value : undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** A present, non-blank value; `undefined` otherwise. */
  value(name: string): string | undefined {
    const value = this.get(name);
    return isBlank(value) ? undefined : value;
  }

  report(param: string, code: WriteParamIssueCode, message: string): void {
    this.issues.push({ param, code, message });
  }

  /** Required on create; on update required only to stay non-blank when it is sent. */
  required(name: string, what: string, because?: string): string | undefined {
    const value = this.get(name);
    if (!isBlank(value)) return value;
    if (this.mode === 'create' || value !== undefined) this.requiredIssue(name, what, value, because);
    return undefined;
  }

  /** Required in every mode (an identifying or per-entry param). */
  requiredAlways(name: string, what: string, because?: string): string | undefined {
    const value = this.get(name);
    if (!isBlank(value)) return value;
    this.requiredIssue(name, what, value, because);
    return undefined;
  }

  private requiredIssue(name: string, what: string, value: string | undefined, because?: string): void {
    const reason = because === undefined ? '' : ` because ${because}`;
    const state = value === undefined ? 'missing' : 'blank';
    this.report(name, CODE.REQUIRED, `${what} is required${reason}, but it is ${state}`);
  }

  /**
   * One line of plain text: no control character (C0, DEL, C1; a tab or a line break is one
   * too in a name) and no character that turns the direction of the text around it, which
   * makes `Ann\u202Enimda` show as "Annadmin" (docs/write-params.md).
   */
  oneLine(name: string): void {
    const value = this.get(name);
    if (value === undefined) return;
    const found = NOT_ONE_LINE.exec(value);
    if (found === null) return;
    const at = charLength(value.slice(0, found.index)) + 1;
    this.report(
      name,
      CODE.CONTROL_CHARACTER,
      // A direction-changing character is not quoted back: it would turn the message around too.
      `${found[0].charCodeAt(0) >= 0x2000 ? 'the value holds a direction-changing character' : `${quote(value)} holds a control character`} ` +
        `(U+${codePointHex(value, found.index)}) at character ${at}: remove it from the source`,
    );
  }

  maxChars(name: string, max: number): void {
    const value = this.get(name);
    if (value === undefined || value.length <= max) return;
    const length = charLength(value);
    if (length > max) {
      this.report(
        name,
        CODE.TOO_LONG,
        `${quote(value)} is ${length} characters long; at most ${max} are allowed`,
      );
    }
  }

  oneOf(name: string, allowed: readonly string[]): void {
    const value = this.value(name);
    if (value !== undefined && !allowed.includes(value)) {
      this.report(name, CODE.INVALID_VALUE, `${quote(value)} is not one of: ${allowed.join(', ')}`);
    }
  }

  email(name: string): void {
    const value = this.value(name);
    if (value !== undefined && !isEmail(value)) {
      this.report(name, CODE.INVALID_EMAIL, `${quote(value)} is not an e-mail address${nonAsciiNote(value)}`);
    }
  }

  positiveInteger(name: string, what = 'an id'): void {
    const value = this.value(name);
    if (value !== undefined && !isPositiveIntegerText(value)) {
      this.report(name, CODE.INVALID_INTEGER, `${quote(value)} is not ${what} (a whole number from 1)`);
    }
  }

  nonNegativeInteger(name: string): void {
    const value = this.value(name);
    if (value !== undefined && !isNonNegativeIntegerText(value)) {
      this.report(name, CODE.INVALID_INTEGER, `${quote(value)} is not a whole number from 0`);
    }
  }

  httpUrl(name: string): void {
    const value = this.value(name);
    if (value !== undefined && !isHttpUrl(value)) {
      this.report(
        name,
        CODE.INVALID_URL,
        `${quote(value)} is not an http(s) URL such as https://example.com/`,
      );
    }
  }

  xhtml(name: string): void {
    const value = this.value(name);
    if (value === undefined) return;
    const check = checkWellFormedXhtml(value);
    if (!check.ok) {
      const where = `line ${check.line}, column ${check.column}`;
      this.report(
        name,
        CODE.INVALID_XHTML,
        `${quote(value)} is not well-formed XHTML: ${check.reason} (${where})`,
      );
    }
  }

  dateTime(name: string): XmlDateTime | undefined {
    const value = this.value(name);
    if (value === undefined) return undefined;
    const parsed = parseXmlDateTime(value);
    if (!parsed) {
      this.report(
        name,
        CODE.INVALID_DATETIME,
        `${quote(value)} is not an XML dateTime; expected YYYY-MM-DDThh:mm:ss with an offset, e.g. 2026-05-04T09:30:00+02:00`,
      );
    }
    return parsed;
  }

  /** Reports under `finishName` when it is earlier than `startName`. */
  notBefore(startName: string, start: XmlDateTime, finishName: string, finish: XmlDateTime): void {
    if (compareXmlDateTimes(finish, start) < 0) {
      const message = `${quote(this.get(finishName) ?? '')} is before ${startName} (${quote(this.get(startName) ?? '')})`;
      this.report(finishName, CODE.FINISH_BEFORE_START, message);
    }
  }

  countryCode(name: string): void {
    const value = this.value(name);
    if (value === undefined || isCountryCode(value)) return;
    const upper = value.toUpperCase();
    const hint = isCountryCode(upper) ? `; write it in upper case: "${upper}"` : '';
    this.report(
      name,
      CODE.INVALID_COUNTRY_CODE,
      `${quote(value)} is not an ISO 3166-1 alpha-2 country code${hint}`,
    );
  }

  /** A client_id: at most 64 characters (docs/design.md, "client_id on create"). */
  clientId(name: string): void {
    this.maxChars(name, CLIENT_ID_MAX_CHARS);
  }

  /** Not both of two params non-blank; reported under the second. */
  notBoth(first: string, second: string): boolean {
    if (this.value(first) === undefined || this.value(second) === undefined) return true;
    this.report(second, CODE.MUTUALLY_EXCLUSIVE, `give ${first} or ${second}, not both`);
    return false;
  }

  /** Exactly one of `names` non-blank; none is reported under the first, several under each extra. */
  exactlyOne(names: readonly string[]): string | undefined {
    const given = names.filter((name) => this.value(name) !== undefined);
    if (given.length === 1) return given[0];
    if (given.length === 0) {
      this.report(names[0] ?? '', CODE.ONE_REQUIRED, `one of ${names.join(', ')} is required`);
    } else {
      for (const name of given.slice(1)) {
        this.report(name, CODE.MUTUALLY_EXCLUSIVE, `give only one of ${given.join(', ')}`);
      }
    }
    return undefined;
  }

  /**
   * The entries of an indexed group such as `prefix[0][city]`, in index order. A name whose
   * index is not `0`, `1`, `2`… is reported and left out.
   */
  indexed(prefix: string): IndexedEntry[] {
    const group = this.group(prefix);
    // Most rows send none of most groups (no preferences, no second address).
    if (group.length === 0) return [];
    const entries = new Map<string, IndexedEntry>();
    for (const { name, index, field } of group) {
      if (field === undefined) continue;
      if (!INDEX.test(index)) {
        this.report(
          name,
          CODE.INVALID_INDEX,
          `"${index}" is not an index; use 0, 1, 2… as in ${prefix}[0][${field}]`,
        );
        continue;
      }
      const entry = entries.get(index) ?? { index, fields: new Map<string, string>() };
      entry.fields.set(field, name);
      entries.set(index, entry);
    }
    const sorted = [...entries.values()];
    return sorted.length < 2 ? sorted : sorted.sort((a, b) => Number(a.index) - Number(b.index));
  }

  /** Values of a flat indexed list such as `event_client_ids[n]`, in index order. */
  indexedValues(prefix: string): { index: string; name: string; value: string }[] {
    const values: { index: string; name: string; value: string }[] = [];
    for (const { name, index, field } of this.group(prefix)) {
      if (field !== undefined) continue;
      if (!INDEX.test(index)) {
        this.report(name, CODE.INVALID_INDEX, `"${index}" is not an index; use 0, 1, 2… as in ${prefix}[0]`);
        continue;
      }
      values.push({ index, name, value: this.params[name] ?? '' });
    }
    return values.sort((a, b) => Number(a.index) - Number(b.index));
  }

  /** Names that are `prefix` and one bracketed key (`user[…][web_links][blog]`). */
  keyed(prefix: string): string[] {
    return this.group(prefix)
      .filter((entry) => entry.field === undefined)
      .map((entry) => entry.name);
  }

  private group(prefix: string): readonly IndexedName[] {
    if (this.groups?.prefixes.includes(prefix)) {
      this.sorted ??= this.groups.sort(this.names);
      return this.sorted.get(prefix) ?? NO_NAMES;
    }
    return new IndexedGroups([prefix]).sort(this.names).get(prefix) ?? NO_NAMES;
  }

  private sorted: Map<string, IndexedName[]> | undefined;
}

const NO_NAMES: readonly IndexedName[] = [];

export const CLIENT_ID_MAX_CHARS = 64;
const INDEX = /^(?:0|[1-9][0-9]{0,8})$/;

/**
 * Why an address with a character outside ASCII is refused, naming it: a letter such as the
 * Kelvin sign (U+212A) looks like `K` and would be another person's address once folded.
 */
function nonAsciiNote(value: string): string {
  const char = [...value].find((one) => one.charCodeAt(0) >= 0x80);
  if (char === undefined) return '';
  return `: it contains U+${codePointHex(char, 0)} ("${char}"), which is not ASCII; write the address in ASCII (a domain as xn--…)`;
}

/** What {@link ParamChecker.oneLine} refuses. */
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const NOT_ONE_LINE = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;
