import { authAttributes } from '../platform/vendor.js';
import type { IntentKind } from '../model/intent.js';

/**
 * Short names a mapping may write instead of the spec's bracketed params, per intent kind.
 * Full names are always accepted too; `{vendor}` in a full name is the vendor word
 * (`user[{vendor}_auth_attributes][email]`), so no mapping hard-codes `svc`.
 */
const ALIASES: Record<IntentKind, Record<string, string>> = {
  user: {
    client_id: 'client_id',
    email: 'user[{vendor}_auth_attributes][email]',
    email_confirmation: 'user[{vendor}_auth_attributes][email_confirmation]',
    password: 'user[{vendor}_auth_attributes][password]',
    first_name: 'user[first_name]',
    last_name: 'user[last_name]',
    salutation: 'user[salutation]',
    membership: 'user[membership]',
    account_name: 'user[account_attributes][account_name]',
    position: 'user[employee_attributes][position]',
    company: 'user[employee_attributes][company_attributes][name]',
    photo_url: 'user[item_attributes][icon_uri]',
    tags: 'user[item_attributes][tags_list]',
    bio: 'user[item_attributes][article_attributes][content]',
    website: 'user[account_attributes][web_links][website]',
    blog: 'user[account_attributes][web_links][blog]',
    linkedin: 'user[account_attributes][web_links][linkedin]',
    twitter: 'user[account_attributes][web_links][twitter]',
    rss: 'user[account_attributes][web_links][rss]',
    custom_data: 'user[account_attributes][profiles_attributes][0][custom_data]',
  },
  event: {
    client_id: 'client_id',
    name: 'event[item_attributes][display_value]',
    description: 'event[item_attributes][article][content]',
    start: 'event[start]',
    finish: 'event[finish]',
    track: 'event[track_name]',
    track_id: 'event[track_id]',
    max_attendees: 'event[max_attendees]',
    tags: 'event[item_attributes][tags_list]',
    sponsor_client_id: 'event[exhibitor_client_id]',
    location: 'location[item_attributes][display_value]',
    speaker_client_ids: 'event[speakers_attributes][n][user_client_id]',
  },
  speaker: {
    event_client_id: 'client_id',
    user_client_id: 'speaker[user_client_id]',
    user_id: 'speaker[user_id]',
    type: 'speaker[type_name]',
  },
  schedule: {
    user_client_id: 'user[client_id]',
    user_id: 'user[id]',
    event_client_id: 'event_client_ids[n]',
  },
  rsvp: {
    user_client_id: 'user[client_id]',
    user_email: 'user[email]',
    user_id: 'user[id]',
    event_client_id: 'client_id',
  },
  contact: {
    user_client_id: 'client_id',
    contact_user_id: 'user_id',
    exhibitor_id: 'exhibitor_id',
  },
  check_in: {
    mode: 'check_in[mode]',
    center: 'check_in[center]',
    display_value: 'check_in[display_value]',
    location_type: 'check_in[location_item][type]',
    location_id: 'check_in[location_item][id]',
    user_client_id: 'client_id',
    user_id: 'id',
  },
};

/** The short names of one kind, for documentation and error messages. */
export function paramAliases(kind: IntentKind): readonly string[] {
  return Object.keys(ALIASES[kind]);
}

/**
 * The full param name for what a mapping wrote: a short name of the kind expands, anything
 * else is taken as the spec's own name (unknown names are refused when the mapping loads).
 */
export function resolveParamName(kind: IntentKind, written: string, vendor: string): string {
  const name = Object.hasOwn(ALIASES[kind], written) ? (ALIASES[kind][written] ?? written) : written;
  return name
    .replaceAll('user[{vendor}_auth_attributes]', authAttributes(vendor))
    .replaceAll('{vendor}', vendor);
}
