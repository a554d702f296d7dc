// `POST /check_in`: the rules its params follow (`checkCheckInParams`) and builders of the
// common cases for callers of the client (`checkInAtCoordinate`, `checkInAtObject`, `chatterPost`).
import { CODE } from '../../errors/codes.js';
import type { FlatParams } from '../../model/params.js';
import { LOCATION_ITEM_TYPES } from './enums.js';
import type { ParamChecker } from './param-checker.js';
import { containsHtml, firstHtmlTag, quote } from './text-rules.js';

const MODE = 'check_in[mode]';
const CENTER = 'check_in[center]';
const TEXT = 'check_in[display_value]';
const ITEM_TYPE = 'check_in[location_item][type]';
const ITEM_ID = 'check_in[location_item][id]';

// `<longitude>,<latitude>` in plain decimal degrees; spaces after the comma are tolerated.
const CENTER_PATTERN = /^\s*(-?\d{1,3}(?:\.\d+)?)\s*,\s*(-?\d{1,2}(?:\.\d+)?)\s*$/;

/** Whether `value` is `<longitude>,<latitude>` with longitude in ±180 and latitude in ±90. */
export function isLonLat(value: string): boolean {
  const match = CENTER_PATTERN.exec(value);
  if (!match) return false;
  const lon = Number(match[1]);
  const lat = Number(match[2]);
  return Math.abs(lon) <= 180 && Math.abs(lat) <= 90;
}

/**
 * `POST /check_in`, spec 4.1: mode 1 to a coordinate (`check_in[center]`) or to an object
 * (`check_in[location_item]`, not both), mode 2 a chatter post whose optional location is
 * an event. Rule 2: location_item type and id come together or not at all.
 */
export function checkCheckInParams(check: ParamChecker): void {
  const mode = check.requiredAlways(MODE, 'the check-in mode (1 or 2)');
  check.oneOf(MODE, ['1', '2']);
  const text = check.value(TEXT);
  if (text !== undefined && containsHtml(text)) {
    check.report(
      TEXT,
      CODE.HTML_NOT_ALLOWED,
      `${quote(text)} contains HTML (${quote(firstHtmlTag(text) ?? '<')}); send plain text`,
    );
  }
  const hasType = check.value(ITEM_TYPE) !== undefined;
  const hasId = check.value(ITEM_ID) !== undefined;
  if (hasType !== hasId) {
    const [missing, given] = hasType ? [ITEM_ID, ITEM_TYPE] : [ITEM_TYPE, ITEM_ID];
    check.report(
      missing,
      CODE.REQUIRED,
      `the location item's ${missing === ITEM_ID ? 'id' : 'type'} is required because ${given} is given (both or neither), but it is missing`,
    );
  }
  check.positiveInteger(ITEM_ID, 'an object id');

  if (mode === '1') {
    const hasCenter = check.value(CENTER) !== undefined;
    if (hasCenter && (hasType || hasId)) {
      check.report(
        CENTER,
        CODE.MUTUALLY_EXCLUSIVE,
        `give ${CENTER} or ${ITEM_TYPE} and ${ITEM_ID}, not both`,
      );
    } else if (!hasCenter && !hasType && !hasId) {
      check.report(
        CENTER,
        CODE.ONE_REQUIRED,
        `a mode 1 check-in needs ${CENTER} or ${ITEM_TYPE} and ${ITEM_ID}`,
      );
    }
    const center = check.value(CENTER);
    if (center !== undefined && !isLonLat(center)) {
      check.report(
        CENTER,
        CODE.INVALID_COORDINATES,
        `${quote(center)} is not "<longitude>,<latitude>" in decimal degrees (longitude -180 to 180, latitude -90 to 90)`,
      );
    }
    check.oneOf(ITEM_TYPE, LOCATION_ITEM_TYPES);
    check.positiveInteger('id', 'a user id');
    check.clientId('client_id');
  } else if (mode === '2') {
    check.requiredAlways(TEXT, 'the text of a chatter post');
    check.oneOf(ITEM_TYPE, ['event']);
    check.oneOf('post_to_twitter', ['1', '0']);
    check.oneOf('post_to_facebook', ['1', '0']);
  }
}

/** Param names a check-in create knows (either mode), for strict mode. */
export const CHECK_IN_PARAM_PATTERNS = [
  MODE,
  CENTER,
  TEXT,
  ITEM_TYPE,
  ITEM_ID,
  'id',
  'client_id',
  'post_to_twitter',
  'post_to_facebook',
];

/** The kinds of object a check-in may point at (§4.1). */
export type CheckInLocationType = (typeof LOCATION_ITEM_TYPES)[number];

/** Who checks in, when not the key's own user. */
export type CheckInActor = { userId: number } | { userClientId: string };

function actorParams(actor: CheckInActor | undefined): FlatParams {
  if (!actor) return {};
  return 'userId' in actor ? { id: String(actor.userId) } : { client_id: actor.userClientId };
}

function finiteIn(value: number, min: number, max: number, name: string): string {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new RangeError(`${name} must be between ${min} and ${max}, got ${value}`);
  }
  return String(value);
}

/** Mode 1 at a coordinate: `check_in[center]` is `<longitude>,<latitude>`. */
export function checkInAtCoordinate(input: {
  longitude: number;
  latitude: number;
  displayValue?: string;
}): FlatParams {
  const center = `${finiteIn(input.longitude, -180, 180, 'longitude')},${finiteIn(input.latitude, -90, 90, 'latitude')}`;
  return {
    [MODE]: '1',
    [CENTER]: center,
    ...(input.displayValue === undefined ? {} : { [TEXT]: input.displayValue }),
  };
}

/** Mode 1 at an object (exhibitor, user, feature or event), optionally for another user. */
export function checkInAtObject(input: {
  type: CheckInLocationType;
  id: number;
  displayValue?: string;
  actor?: CheckInActor;
}): FlatParams {
  return {
    [MODE]: '1',
    [ITEM_TYPE]: input.type,
    [ITEM_ID]: String(input.id),
    ...(input.displayValue === undefined ? {} : { [TEXT]: input.displayValue }),
    ...actorParams(input.actor),
  };
}

/**
 * Mode 2, a chatter post: at the conference, or at one event (rule 2: type and id go
 * together, so an event is given whole or not at all).
 */
export function chatterPost(input: {
  text: string;
  eventId?: number;
  postToTwitter?: boolean;
  postToFacebook?: boolean;
}): FlatParams {
  if (input.text.trim() === '') throw new RangeError('a chatter post needs text (check_in[display_value])');
  return {
    [MODE]: '2',
    [TEXT]: input.text,
    ...(input.eventId === undefined ? {} : { [ITEM_TYPE]: 'event', [ITEM_ID]: String(input.eventId) }),
    ...(input.postToTwitter ? { post_to_twitter: '1' } : {}),
    ...(input.postToFacebook ? { post_to_facebook: '1' } : {}),
  };
}
