import type { FlatParams } from '../model/params.js';

/** The kinds of object a check-in may point at (§4.1). */
export type CheckInLocationType = 'exhibitor' | 'user' | 'feature' | 'event';

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
    'check_in[mode]': '1',
    'check_in[center]': center,
    ...(input.displayValue === undefined ? {} : { 'check_in[display_value]': input.displayValue }),
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
    'check_in[mode]': '1',
    'check_in[location_item][type]': input.type,
    'check_in[location_item][id]': String(input.id),
    ...(input.displayValue === undefined ? {} : { 'check_in[display_value]': input.displayValue }),
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
    'check_in[mode]': '2',
    'check_in[display_value]': input.text,
    ...(input.eventId === undefined
      ? {}
      : { 'check_in[location_item][type]': 'event', 'check_in[location_item][id]': String(input.eventId) }),
    ...(input.postToTwitter ? { post_to_twitter: '1' } : {}),
    ...(input.postToFacebook ? { post_to_facebook: '1' } : {}),
  };
}
