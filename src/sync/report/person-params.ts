import type { FlatParams } from '../../model/params.js';
import { DEFAULT_VENDOR, emailParam } from '../../platform/vendor.js';
import { EVENT_NAME_PARAM } from '../../platform/write-params/event-params.js';

/**
 * The params a person means when searching for someone or something: a whole name (first
 * and last), a nickname, an e-mail address (under the vendor word in force and the spec's),
 * an event's name. A list of names is one value, its parts joined by a space. The report's
 * `--search` and the dashboard's `q` read these, besides the key and the message
 * (docs/sync-engine.md, "Rows are found by the person").
 */
export function searchedParams(vendor: string): Array<string | string[]> {
  return [
    ['user[first_name]', 'user[last_name]'],
    'user[nickname]',
    'user[email]',
    ...new Set([emailParam(vendor), emailParam(DEFAULT_VENDOR)]),
    EVENT_NAME_PARAM,
  ];
}

/** Who or what a result or a planned intent names, as a person reads it: a name and an e-mail. */
export interface PersonLabel {
  name: string | null;
  email: string | null;
}

/**
 * The name and e-mail in a set of params (stored redacted: a password never shows), for a
 * report's columns and a delete preview. An event has its name and no e-mail.
 */
export function personOf(params: FlatParams, vendor: string): PersonLabel {
  const whole = [params['user[first_name]'], params['user[last_name]']].filter(Boolean).join(' ');
  const name = whole || params['user[nickname]'] || params[EVENT_NAME_PARAM] || null;
  const email =
    params[emailParam(vendor)] || params[emailParam(DEFAULT_VENDOR)] || params['user[email]'] || null;
  return { name, email };
}

/** `Ann One <ann@example.org>`, `Ann One`, `<ann@example.org>`, or '' when the params name no one. */
export function describePerson(label: PersonLabel): string {
  if (label.name && label.email) return `${label.name} <${label.email}>`;
  return label.name ?? (label.email ? `<${label.email}>` : '');
}
