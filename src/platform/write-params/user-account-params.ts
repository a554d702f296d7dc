import { CODE } from '../../errors/codes.js';
import { COUNTRIES_REQUIRING_STATE } from './country-codes.js';
import { IndexedGroups } from './indexed-groups.js';
import { parseJsonObject } from './json-object.js';
import type { ParamChecker } from './param-checker.js';

const ACCOUNT = 'user[account_attributes]';
const ADDRESSES = `${ACCOUNT}[addresses_attributes]`;
const PREFERENCES = `${ACCOUNT}[preferences_attributes]`;
const PROFILES = `${ACCOUNT}[profiles_attributes]`;
const WEB_LINKS = `${ACCOUNT}[web_links]`;
const PHONES = 'user[item_attributes][phones_attributes]';

/** The indexed and keyed groups of a user write. */
export const USER_INDEXED_GROUPS = new IndexedGroups([ADDRESSES, PHONES, PREFERENCES, PROFILES, WEB_LINKS]);

export const ADDRESS_FIELDS = ['street', 'street2', 'city', 'state', 'postal_code', 'country_code'] as const;
const FLAG_VALUES = ['1', '0'];

export const PHONE_FIELDS = ['work_number', 'cell_number', 'fax_number'] as const;

/**
 * The account part of a user: addresses, phones, preferences, the custom-data profile and
 * web links. Each indexed entry that is sent is checked as a whole, on create and update
 * alike, because the platform stores the entry as a whole.
 */
export function checkUserAccountParams(check: ParamChecker): void {
  for (const { index } of check.indexed(ADDRESSES)) {
    const prefix = `${ADDRESSES}[${index}]`;
    check.requiredAlways(`${prefix}[city]`, 'the city of an address');
    const country = check.requiredAlways(`${prefix}[country_code]`, 'the country code of an address');
    check.countryCode(`${prefix}[country_code]`);
    if (country !== undefined && COUNTRIES_REQUIRING_STATE.has(country)) {
      check.requiredAlways(`${prefix}[state]`, 'the state', `the address is in ${country}`);
    }
  }
  // Phones have no required sub-field; reading them reports malformed indexes.
  check.indexed(PHONES);
  for (const { index } of check.indexed(PREFERENCES)) {
    const prefix = `${PREFERENCES}[${index}]`;
    check.requiredAlways(`${prefix}[key]`, 'the key of a preference');
    if (check.requiredAlways(`${prefix}[value]`, 'the value of a preference') !== undefined) {
      check.oneOf(`${prefix}[value]`, FLAG_VALUES);
    }
  }
  for (const entry of check.indexed(PROFILES)) {
    const param = entry.fields.get('custom_data');
    if (param !== undefined) checkJsonObject(check, param);
  }
  for (const param of check.keyed(WEB_LINKS)) check.httpUrl(param);
  if (check.value(WEB_LINKS) !== undefined) {
    check.report(
      WEB_LINKS,
      CODE.INVALID_VALUE,
      `web links are sent one per kind, e.g. ${WEB_LINKS}[website]`,
    );
  }
}

function checkJsonObject(check: ParamChecker, param: string): void {
  if (check.jsonObjects?.has(param)) return;
  const value = check.value(param);
  if (value === undefined) return;
  const read = parseJsonObject(value);
  if ('problem' in read) check.report(param, CODE.INVALID_JSON_OBJECT, read.problem);
}

/** Param names the account part knows, for strict mode. */
export const USER_ACCOUNT_PARAM_PATTERNS: readonly RegExp[] = [
  new RegExp(`^${escape(ADDRESSES)}\\[[^\\]]*\\]\\[(?:${ADDRESS_FIELDS.join('|')})\\]$`),
  new RegExp(`^${escape(PHONES)}\\[[^\\]]*\\]\\[(?:${PHONE_FIELDS.join('|')})\\]$`),
  new RegExp(`^${escape(PREFERENCES)}\\[[^\\]]*\\]\\[(?:key|value)\\]$`),
  new RegExp(`^${escape(PROFILES)}\\[[^\\]]*\\]\\[custom_data\\]$`),
  // The spec shows one more social link kind without its key: any kind is accepted.
  new RegExp(`^${escape(WEB_LINKS)}\\[[a-z0-9_]+\\]$`),
];

function escape(text: string): string {
  return text.replace(/[[\]]/g, '\\$&');
}
