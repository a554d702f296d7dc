import {
  listContactCheckIns,
  listChatter,
  listMyCheckIns,
  getCheckIn,
  createCheckIn,
} from './handlers/check-in-handlers.js';
import { addContact, listContacts, removeContact } from './handlers/contact-handlers.js';
import { createEvent, deleteEvent, getEvent, listEvents, updateEvent } from './handlers/event-handlers.js';
import { addRsvp, removeRsvp, replaceSchedule } from './handlers/schedule-handlers.js';
import { signatureTest } from './handlers/signature-test-handler.js';
import { addSpeaker, listEventSpeakers, listSpeakers, removeSpeaker } from './handlers/speaker-handlers.js';
import { createUser, deleteUser, getUser, listUsers, updateUser } from './handlers/user-handlers.js';
import type { Handler } from './sandbox-request.js';

export interface Route {
  method: string;
  /** The endpoint as counters name it, e.g. `/user/member/{id}`. */
  pattern: string;
  handler: Handler;
}

/**
 * Every endpoint of §4 and §5. A member path's `{id}` may be left out when a `client_id`
 * param stands in for it (docs/design.md, "our conventions"), so `PUT /event?client_id=X` is the same
 * endpoint as `PUT /event/member/{id}`.
 */
const ROUTES: Route[] = [
  { method: 'GET', pattern: '/check_in/my', handler: listMyCheckIns },
  { method: 'GET', pattern: '/check_in/chatter', handler: listChatter },
  { method: 'GET', pattern: '/check_in/contacts', handler: listContactCheckIns },
  { method: 'GET', pattern: '/check_in/member/{id}', handler: getCheckIn },
  { method: 'POST', pattern: '/check_in', handler: createCheckIn },
  { method: 'GET', pattern: '/user', handler: listUsers },
  { method: 'POST', pattern: '/user', handler: createUser },
  { method: 'PUT', pattern: '/user', handler: updateUser },
  { method: 'DELETE', pattern: '/user', handler: deleteUser },
  { method: 'DELETE', pattern: '/user/{id}', handler: deleteUser },
  { method: 'GET', pattern: '/user/member/{id}', handler: getUser },
  { method: 'PUT', pattern: '/user/member/{id}', handler: updateUser },
  { method: 'DELETE', pattern: '/user/member/{id}', handler: deleteUser },
  { method: 'GET', pattern: '/role/contacts', handler: listContacts },
  { method: 'POST', pattern: '/role/contacts', handler: addContact },
  { method: 'DELETE', pattern: '/role/contacts', handler: removeContact },
  { method: 'GET', pattern: '/speaker', handler: listSpeakers },
  { method: 'GET', pattern: '/speaker/event/{id}', handler: listEventSpeakers },
  { method: 'POST', pattern: '/speaker/event/{id}', handler: addSpeaker },
  { method: 'DELETE', pattern: '/speaker/event/{id}', handler: removeSpeaker },
  { method: 'GET', pattern: '/event', handler: listEvents },
  { method: 'POST', pattern: '/event', handler: createEvent },
  { method: 'PUT', pattern: '/event', handler: updateEvent },
  { method: 'DELETE', pattern: '/event', handler: deleteEvent },
  { method: 'GET', pattern: '/event/member/{id}', handler: getEvent },
  { method: 'PUT', pattern: '/event/member/{id}', handler: updateEvent },
  { method: 'DELETE', pattern: '/event/member/{id}', handler: deleteEvent },
  { method: 'POST', pattern: '/event/rsvp/{id}', handler: addRsvp },
  { method: 'DELETE', pattern: '/event/rsvp/{id}', handler: removeRsvp },
  { method: 'PUT', pattern: '/event/schedule', handler: replaceSchedule },
  { method: 'GET', pattern: '/signature_test', handler: signatureTest },
  { method: 'POST', pattern: '/signature_test', handler: signatureTest },
  { method: 'PUT', pattern: '/signature_test', handler: signatureTest },
];

export type RouteMatch =
  | { kind: 'found'; route: Route; pathId: string | undefined }
  | { kind: 'wrong-method'; allowed: string[] }
  | { kind: 'not-found' };

/** Path → routes of every method, for the path with and without its `{id}`. */
const byPath = new Map<string, Route[]>();
for (const route of ROUTES) {
  const keys = route.pattern.endsWith('/{id}')
    ? [route.pattern, route.pattern.slice(0, -'/{id}'.length)]
    : [route.pattern];
  for (const key of keys) {
    const list = byPath.get(key) ?? [];
    // A bare path keeps its own route when it has one (GET /user lists; it is not GET /user/{id}).
    if (!list.some((known) => known.method === route.method)) list.push(route);
    byPath.set(key, list);
  }
}

/**
 * Finds the route of a path such as `/user/member/12`, `/event/rsvp` or `/user/member/12.json`
 * (a format suffix is stripped by the caller). Numeric-looking or not, the last segment of a
 * member path is its `{id}`: an unknown id is a 404 from the handler, not from here.
 */
export function matchRoute(method: string, path: string): RouteMatch {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const exact = byPath.get(trimmed);
  if (exact) return pick(exact, method, undefined);
  const slash = trimmed.lastIndexOf('/');
  const member = byPath.get(`${trimmed.slice(0, slash)}/{id}`);
  const id = trimmed.slice(slash + 1);
  if (member && id !== '') return pick(member, method, decodeURIComponentSafe(id));
  return { kind: 'not-found' };
}

function pick(routes: Route[], method: string, pathId: string | undefined): RouteMatch {
  const route = routes.find((candidate) => candidate.method === method);
  if (route) return { kind: 'found', route, pathId };
  return { kind: 'wrong-method', allowed: routes.map((candidate) => candidate.method) };
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
