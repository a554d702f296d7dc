import type { IntentKind } from '../../model/intent.js';
import type { FlatParams } from '../../model/params.js';
import { DEFAULT_VENDOR, emailParam } from '../../platform/vendor.js';
import { EVENT_NAME_PARAM } from '../../platform/write-params/event-params.js';
import { leftOutParam } from '../phases/left-out-parents.js';

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
    // A row skipped on purpose is keyed by its place; the client_ids it would have synced
    // are found here (a void ticket, one not yet assigned).
    [leftOutParam('user', 0), leftOutParam('event', 0)],
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
export function personOf(params: FlatParams, vendor?: string): PersonLabel {
  const whole = [params['user[first_name]'], params['user[last_name]']].filter(Boolean).join(' ');
  const name = whole || params['user[nickname]'] || params[EVENT_NAME_PARAM] || null;
  const email =
    (vendor === undefined ? undefined : params[emailParam(vendor)]) ||
    params[emailParam(DEFAULT_VENDOR)] ||
    params['user[email]'] ||
    // Synced under another vendor word (`EVSYNC_VENDOR` changed since): still the e-mail.
    Object.entries(params).find(([param]) => AUTH_EMAIL.test(param))?.[1] ||
    null;
  return { name, email };
}

const AUTH_EMAIL = /^user\[[a-z0-9_]+_auth_attributes\]\[email\]$/;

/** What a mirror delete names a key by: the name and e-mail the ledger last sent for it. */
export async function labelsOf(
  ledger: { syncedParams?: (kind: IntentKind, keys: readonly string[]) => Promise<Map<string, FlatParams>> },
  kind: IntentKind,
  keys: readonly string[],
): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  if (ledger.syncedParams === undefined || keys.length === 0) return labels;
  for (const [key, params] of await ledger.syncedParams(kind, keys)) {
    const label = describePerson(personOf(params));
    if (label !== '') labels.set(key, label);
  }
  return labels;
}

/** `Ann One <ann@example.org>`, `Ann One`, `<ann@example.org>`, or '' when the params name no one. */
export function describePerson(label: PersonLabel): string {
  if (label.name && label.email) return `${label.name} <${label.email}>`;
  return label.name ?? (label.email ? `<${label.email}>` : '');
}
