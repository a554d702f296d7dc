import { CODE } from '../../errors/codes.js';
import { SPEAKER_TYPES } from './enums.js';
import { IndexedGroups } from './indexed-groups.js';
import type { ParamChecker } from './param-checker.js';

/** An event's name, as a person knows it. */
export const EVENT_NAME_PARAM = 'event[item_attributes][display_value]';
const NAME = EVENT_NAME_PARAM;
const DESCRIPTION = 'event[item_attributes][article][content]';
const START = 'event[start]';
const FINISH = 'event[finish]';
/** The indexed group of an event's own speakers (`…[n][user_client_id]`, `…[n][type_name]`). */
export const EVENT_SPEAKERS = 'event[speakers_attributes]';
const LOCATION_NAME = 'location[item_attributes][display_value]';

/** The indexed group of an event write. */
export const EVENT_INDEXED_GROUPS = new IndexedGroups([EVENT_SPEAKERS]);

/**
 * The fields that make up a full location address. `street2` and `country_code` may be left
 * out; the spec's "partial addresses are not allowed" is read as: street, city and state,
 * all of them or none (docs/write-params.md).
 */
export const LOCATION_ADDRESS_REQUIRED = ['street', 'city', 'state'] as const;
export const LOCATION_ADDRESS_FIELDS = ['street', 'street2', 'city', 'state', 'country_code'] as const;

/** `POST /event` (mode `create`) and `PUT /event/member/{id}` (mode `update`), spec 4.5. */
export function checkEventParams(check: ParamChecker): void {
  check.required(NAME, 'the event name');
  if (check.required(DESCRIPTION, 'the event description') !== undefined) check.xhtml(DESCRIPTION);
  const start = check.required(START, 'the start') !== undefined ? check.dateTime(START) : undefined;
  const finish = check.required(FINISH, 'the finish') !== undefined ? check.dateTime(FINISH) : undefined;
  if (start && finish) check.notBefore(START, start, FINISH, finish);

  check.positiveInteger('event[track_id]', 'a track id');
  check.notBoth('event[track_id]', 'event[track_name]');
  check.nonNegativeInteger('event[max_attendees]');
  check.clientId('client_id');
  check.positiveInteger('id');
  check.clientId('event[exhibitor_client_id]');

  for (const { index } of check.indexed(EVENT_SPEAKERS)) {
    const prefix = `${EVENT_SPEAKERS}[${index}]`;
    if (check.requiredAlways(`${prefix}[user_client_id]`, 'the client_id of a speaker') !== undefined) {
      check.clientId(`${prefix}[user_client_id]`);
    }
    check.oneOf(`${prefix}[type_name]`, SPEAKER_TYPES);
  }
  checkLocation(check);
}

function checkLocation(check: ParamChecker): void {
  const given = LOCATION_ADDRESS_FIELDS.filter((name) => check.value(field(name)) !== undefined);
  if (given.length === 0) return;
  const missing = LOCATION_ADDRESS_REQUIRED.filter((name) => !given.includes(name));
  for (const name of missing) {
    const givenNames = given.map(field).join(', ');
    check.report(
      field(name),
      CODE.PARTIAL_ADDRESS,
      `the ${name} is required because ${givenNames} ${given.length === 1 ? 'is' : 'are'} given (partial addresses are not allowed), but it is missing`,
    );
  }
  check.countryCode(field('country_code'));
  check.requiredAlways(LOCATION_NAME, 'the location name', 'a location address is given');
}

function field(name: string): string {
  return `location_address[${name}]`;
}

/** Param names an event write knows, for strict mode. */
export function eventParamPatterns(mode: 'create' | 'update'): (string | RegExp)[] {
  const exact = [
    NAME,
    DESCRIPTION,
    START,
    FINISH,
    'event[track_id]',
    'event[track_name]',
    'event[max_attendees]',
    'client_id',
    'event[item_attributes][tags_list]',
    'event[exhibitor_client_id]',
    LOCATION_NAME,
    ...LOCATION_ADDRESS_FIELDS.map((name) => `location_address[${name}]`),
  ];
  if (mode === 'update') exact.push('id');
  return [...exact, /^event\[speakers_attributes\]\[[^\]]*\]\[(?:user_client_id|type_name)\]$/];
}
