import type { FlatParams } from '../../model/params.js';
import type { CompareAs } from './compare-values.js';
import { normalised } from './compare-values.js';

/** A platform object as the read endpoints answer it (§2.3, §2.4), loosely. */
export type PlatformObject = Readonly<Record<string, unknown>>;

/**
 * Where the platform shows a write param in its answer: `undefined` when the answer does
 * not show that field at all (then it is not compared), `null` when it shows it empty.
 */
type Reader = (object: PlatformObject) => unknown;

interface FieldRule {
  /** The write param, or a pattern of it (indexed params: phones, addresses). */
  param: RegExp;
  as: CompareAs;
  read: (object: PlatformObject, match: RegExpMatchArray) => unknown;
}

/** `object[name]` of an object field, `undefined` when the object is not shown. */
function member(parent: string, name: string, emptyWhenAbsent = false): Reader {
  return (object) => {
    const value = object[parent];
    if (value === undefined) return undefined;
    if (value === null || typeof value !== 'object') return null;
    const field = (value as Record<string, unknown>)[name];
    return field === undefined && emptyWhenAbsent ? null : field;
  };
}

/** `object[list][n][name]`, an entry the list does not have being empty. */
function entry(list: string, name: (match: RegExpMatchArray) => string): FieldRule['read'] {
  return (object, match) => {
    const items = object[list];
    if (!Array.isArray(items)) return undefined;
    const item: unknown = items[Number(match[1])];
    if (typeof item !== 'object' || item === null) return null;
    return (item as Record<string, unknown>)[name(match)] ?? null;
  };
}

const exact = (name: string): RegExp => new RegExp(`^${name.replace(/[[\]]/g, '\\$&')}$`);
const top =
  (name: string): FieldRule['read'] =>
  (object) =>
    object[name];

/**
 * The user params §2.3 shows back. Not compared: the e-mail, salutation and membership
 * (§2.3 has no such field), the password (never read back), the photo (sent as a URI,
 * answered as an `icon_id`), preferences.
 */
const USER_RULES: readonly FieldRule[] = [
  { param: exact('user[first_name]'), as: 'text', read: top('first_name') },
  { param: exact('user[last_name]'), as: 'text', read: top('last_name') },
  { param: exact('user[employee_attributes][position]'), as: 'text', read: member('employee', 'position') },
  {
    param: exact('user[employee_attributes][company_attributes][name]'),
    as: 'text',
    read: member('employee', 'organization'),
  },
  { param: exact('user[item_attributes][tags_list]'), as: 'tags', read: top('tags') },
  { param: exact('user[item_attributes][article_attributes][content]'), as: 'xhtml', read: top('content') },
  {
    param: /^user\[account_attributes\]\[web_links\]\[([a-z_]+)\]$/,
    as: 'text',
    read: (object, match) => member('web_links', match[1]!, true)(object),
  },
  {
    param: exact('user[account_attributes][profiles_attributes][0][custom_data]'),
    as: 'json',
    read: member('profile', 'custom_data'),
  },
  {
    param: /^user\[item_attributes\]\[phones_attributes\]\[(\d+)\]\[(work_number|cell_number|fax_number)\]$/,
    as: 'text',
    read: entry('phones', (match) => match[2]!),
  },
  {
    param:
      /^user\[account_attributes\]\[addresses_attributes\]\[(\d+)\]\[(street|street2|city|state|postal_code|country_code)\]$/,
    as: 'text',
    read: entry('addresses', (match) => match[2]!),
  },
];

/**
 * The event params §2.4 shows back. Speakers are audited as links (`speaker` drift), not
 * as a field of the event; `max_attendees` only when the answer shows it.
 */
const EVENT_RULES: readonly FieldRule[] = [
  { param: exact('event[item_attributes][display_value]'), as: 'text', read: top('name') },
  { param: exact('event[item_attributes][article][content]'), as: 'xhtml', read: top('content') },
  { param: exact('event[start]'), as: 'instant', read: top('start') },
  { param: exact('event[finish]'), as: 'instant', read: top('finish') },
  { param: exact('event[track_name]'), as: 'text', read: member('track', 'name') },
  { param: exact('event[track_id]'), as: 'number', read: member('track', 'id') },
  { param: exact('event[item_attributes][tags_list]'), as: 'tags', read: top('tags') },
  { param: exact('location[item_attributes][display_value]'), as: 'text', read: member('location', 'name') },
  { param: exact('event[max_attendees]'), as: 'number', read: top('max_attendees') },
];

export type AuditedKind = 'user' | 'event';
const RULES: Record<AuditedKind, readonly FieldRule[]> = { user: USER_RULES, event: EVENT_RULES };

/** One compared field of a source object: the param and the value the source says, normalised. */
export interface SourceField {
  param: string;
  value: string;
}

/**
 * The fields of a source object the audit compares: each param it sets that the platform
 * shows back, with its value normalised. Only these are kept while the platform is read.
 */
export function sourceFields(kind: AuditedKind, params: FlatParams): SourceField[] {
  const fields: SourceField[] = [];
  for (const [param, value] of Object.entries(params)) {
    const rule = RULES[kind].find((candidate) => candidate.param.test(param));
    if (rule) fields.push({ param, value: normalised(value, rule.as) });
  }
  return fields;
}

/** A field whose platform value differs from the source's. */
export interface FieldDifference {
  param: string;
  source: string;
  platform: string;
}

/** The fields that differ; a field the answer does not show is not compared. */
export function differences(
  kind: AuditedKind,
  fields: readonly SourceField[],
  object: PlatformObject,
): FieldDifference[] {
  const found: FieldDifference[] = [];
  for (const field of fields) {
    const rule = RULES[kind].find((candidate) => candidate.param.test(field.param));
    const match = rule === undefined ? null : field.param.match(rule.param);
    if (!rule || !match) continue;
    const shown = rule.read(object, match);
    if (shown === undefined) continue;
    const platform = normalised(shown, rule.as);
    if (platform !== field.value) found.push({ param: field.param, source: field.value, platform });
  }
  return found;
}
