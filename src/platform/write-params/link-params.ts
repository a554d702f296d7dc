import { CODE } from '../../errors/codes.js';
import { SPEAKER_TYPES } from './enums.js';
import { IndexedGroups } from './indexed-groups.js';
import type { ParamChecker } from './param-checker.js';
import { isPositiveIntegerText, quote } from './text-rules.js';

/**
 * The event of a speaker or RSVP request: the `{id}` of the path, or `client_id` standing in
 * for it (docs/design.md, "identifying objects"). `pathId` is reported under the name `id`.
 */
function checkEventTarget(check: ParamChecker, pathId: string | undefined): void {
  if (pathId !== undefined && pathId !== '') {
    if (!isPositiveIntegerText(pathId)) {
      check.report(
        'id',
        CODE.INVALID_INTEGER,
        `${quote(pathId)} in the path is not an event id (a whole number from 1)`,
      );
    }
  } else {
    check.requiredAlways('client_id', 'the client_id of the event (or its id in the path)');
  }
  check.clientId('client_id');
}

/** `POST` and `DELETE /speaker/event/{id}`, spec 4.4: exactly one way to name the user. */
export function checkSpeakerParams(check: ParamChecker, pathId: string | undefined, adding: boolean): void {
  checkEventTarget(check, pathId);
  const user = check.exactlyOne(['speaker[user_id]', 'speaker[user_client_id]']);
  if (user === 'speaker[user_id]') check.positiveInteger(user, 'a user id');
  if (user === 'speaker[user_client_id]') check.clientId(user);
  if (adding) check.oneOf('speaker[type_name]', SPEAKER_TYPES);
}

/** `POST` and `DELETE /event/rsvp/{id}`, spec 4.5: the event, and the user named one way. */
export function checkRsvpParams(check: ParamChecker, pathId: string | undefined): void {
  checkEventTarget(check, pathId);
  const user = check.exactlyOne(['user[email]', 'user[client_id]', 'user[id]']);
  if (user === 'user[email]') check.email(user);
  if (user === 'user[client_id]') check.clientId(user);
  if (user === 'user[id]') check.positiveInteger(user, 'a user id');
  check.oneOf('response', ['yes', 'no']);
}

/**
 * `PUT /event/schedule`, spec 4.5. No `event_client_ids[n]` at all is a valid request: it
 * replaces the schedule with an empty one (docs/write-params.md).
 */
export function checkScheduleParams(check: ParamChecker): void {
  const user = check.exactlyOne(['user[client_id]', 'user[id]']);
  if (user === 'user[client_id]') check.clientId(user);
  if (user === 'user[id]') check.positiveInteger(user, 'a user id');
  for (const entry of check.indexedValues('event_client_ids')) {
    if (check.requiredAlways(entry.name, 'an event client_id') !== undefined) check.clientId(entry.name);
  }
}

/** `GET`, `POST` and `DELETE /role/contacts`, spec 4.3. */
export function checkContactParams(check: ParamChecker, changing: boolean): void {
  check.clientId('client_id');
  if (!changing) return;
  const target = check.exactlyOne(['user_id', 'exhibitor_id']);
  if (target !== undefined)
    check.positiveInteger(target, target === 'user_id' ? 'a user id' : 'an exhibitor id');
}

/** The indexed group of a schedule replacement. */
export const SCHEDULE_INDEXED_GROUPS = new IndexedGroups(['event_client_ids']);

export const SPEAKER_PARAM_PATTERNS = [
  'client_id',
  'speaker[user_id]',
  'speaker[user_client_id]',
  'speaker[type_name]',
];
export const RSVP_PARAM_PATTERNS = ['client_id', 'user[email]', 'user[client_id]', 'user[id]', 'response'];
export const SCHEDULE_PARAM_PATTERNS: (string | RegExp)[] = [
  'user[client_id]',
  'user[id]',
  /^event_client_ids\[[^\]]*\]$/,
];
export const CONTACT_LIST_PARAM_PATTERNS = ['client_id'];
export const CONTACT_CHANGE_PARAM_PATTERNS = ['client_id', 'user_id', 'exhibitor_id'];
