import type { FlatParams } from '../model/params.js';
import { unflattenParams } from '../platform/params.js';
import { nowMicros } from './clock.js';
import { child, indexedChildren, nullable, splitList, text } from './nested-reader.js';
import { invalidParam } from './sandbox-http-error.js';
import type { SandboxState } from './sandbox-state.js';
import type { AddressRecord, PhoneRecord, UserRecord } from './state-types.js';

/** A new platform-wide user with only the required fields; the rest is set by params. */
export function newUserRecord(
  state: SandboxState,
  fields: { firstName: string; lastName: string; email: string; inConference: boolean },
): UserRecord {
  const now = nowMicros();
  return {
    id: state.nextId(),
    inConference: fields.inConference,
    clientIds: [],
    salutation: null,
    firstName: fields.firstName,
    lastName: fields.lastName,
    email: fields.email,
    hasPassword: false,
    membership: 'member',
    currentState: 'active',
    accountId: state.nextId(),
    accountName: null,
    employeeId: state.nextId(),
    position: null,
    companyName: null,
    itemId: state.nextId(),
    iconId: null,
    iconUri: null,
    tags: [],
    phones: [],
    bio: null,
    webLinks: {},
    customData: {},
    preferences: {},
    addresses: [],
    createdOn: now,
    updatedOn: now,
  };
}

/**
 * Sets every user field that the params mention (spec §4.2 rule 3: fields not sent stay
 * as they are). Lists sent by index (phones, addresses) replace the stored list; web
 * links and preferences are set key by key. Params are already validated.
 */
export function applyUserParams(
  state: SandboxState,
  user: UserRecord,
  params: FlatParams,
  vendor: string,
): void {
  const nested = unflattenParams(params);
  const input = child(nested, 'user');
  if (!input) return;
  const set = <K extends keyof UserRecord>(key: K, value: UserRecord[K] | undefined): void => {
    if (value !== undefined) user[key] = value;
  };
  set('salutation', mapText(text(input, 'salutation'), nullable));
  set('firstName', text(input, 'first_name'));
  set('lastName', text(input, 'last_name'));
  set(
    'membership',
    mapText(text(input, 'membership'), (value) => value || 'member'),
  );

  const auth = child(input, `${vendor}_auth_attributes`);
  const email = text(auth, 'email');
  if (email !== undefined && email !== user.email) state.setUserEmail(user, email);
  if (text(auth, 'password')) user.hasPassword = true;

  const account = child(input, 'account_attributes');
  set('accountName', mapText(text(account, 'account_name'), nullable));
  const links = child(account, 'web_links');
  for (const [name, value] of Object.entries(links ?? {})) {
    if (typeof value !== 'string') continue;
    if (value === '') delete user.webLinks[name];
    else user.webLinks[name] = value;
  }
  const customData = text(child(child(account, 'profiles_attributes'), '0'), 'custom_data');
  if (customData !== undefined) user.customData = parseCustomData(customData);
  for (const [, preference] of indexedChildren(child(account, 'preferences_attributes'))) {
    const key = text(preference, 'key');
    if (key) user.preferences[key] = text(preference, 'value') === '1';
  }
  const addresses = indexedChildren(child(account, 'addresses_attributes'));
  if (addresses.length > 0) user.addresses = addresses.map(([, address]) => addressOf(address));

  const employee = child(input, 'employee_attributes');
  set('position', mapText(text(employee, 'position'), nullable));
  set('companyName', mapText(text(child(employee, 'company_attributes'), 'name'), nullable));

  const item = child(input, 'item_attributes');
  const iconUri = text(item, 'icon_uri');
  if (iconUri !== undefined) {
    user.iconUri = nullable(iconUri);
    user.iconId = iconUri === '' ? null : state.nextId();
  }
  const tags = text(item, 'tags_list');
  if (tags !== undefined) user.tags = splitList(tags);
  const phones = indexedChildren(child(item, 'phones_attributes'));
  // A phone sent with every number blank is cleared (§4.2 rule 3), so it is no phone.
  if (phones.length > 0)
    user.phones = phones
      .map(([, phone]) => phoneOf(phone))
      .filter(
        (phone) => phone.work_number !== null || phone.cell_number !== null || phone.fax_number !== null,
      );
  const bio = text(child(item, 'article_attributes'), 'content');
  if (bio !== undefined) user.bio = nullable(bio);
  if (text(item, 'remove_article') === '1') user.bio = null;
  for (const tag of user.tags) state.tagId(tag);
  user.updatedOn = nowMicros();
}

function mapText<T>(value: string | undefined, map: (value: string) => T): T | undefined {
  return value === undefined ? undefined : map(value);
}

function parseCustomData(json: string): Record<string, unknown> {
  if (json.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidParam(
      'user[account_attributes][profiles_attributes][0][custom_data]',
      'must be a JSON object',
    );
  }
  return parsed as Record<string, unknown>;
}

/** An address as the platform stores it: blanks are nulls, the country code upper case. */
export function addressOf(input: Record<string, unknown>): AddressRecord {
  const field = (key: string): string | null => {
    const value = input[key];
    return typeof value === 'string' && value !== '' ? value : null;
  };
  return {
    street: field('street'),
    street2: field('street2'),
    city: field('city'),
    state: field('state'),
    postal_code: field('postal_code'),
    country_code: field('country_code')?.toUpperCase() ?? null,
  };
}

function phoneOf(input: Record<string, unknown>): PhoneRecord {
  const field = (key: string): string | null => {
    const value = input[key];
    return typeof value === 'string' && value !== '' ? value : null;
  };
  return {
    work_number: field('work_number'),
    cell_number: field('cell_number'),
    fax_number: field('fax_number'),
  };
}
