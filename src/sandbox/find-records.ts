import type { FlatParams } from '../model/params.js';
import { emailParam } from '../platform/vendor.js';
import { SandboxHttpError, invalidParam, notFound } from './sandbox-http-error.js';
import type { SandboxRequest } from './sandbox-request.js';
import type { SandboxState } from './sandbox-state.js';
import type { EventRecord, UserRecord } from './state-types.js';

/**
 * The user a member request names: `{id}` in the path, else a `client_id` (or `id`) param
 * standing in for it, else (GET only) the e-mail param. Users outside this conference are
 * not found: they exist platform-wide only.
 */
export function userOfRequest(state: SandboxState, request: SandboxRequest, vendor: string): UserRecord {
  const { params } = request;
  let user: UserRecord | undefined;
  let what: string;
  if (request.pathId !== undefined) {
    user = state.users.get(platformId(request.pathId));
    what = `User ${request.pathId}`;
  } else if (params.client_id) {
    user = state.userByClientId(params.client_id);
    what = `User with client_id "${params.client_id}"`;
  } else if (params.id) {
    user = state.users.get(platformId(params.id));
    what = `User ${params.id}`;
  } else if (params[emailParam(vendor)]) {
    user = state.userByEmail(params[emailParam(vendor)] ?? '');
    what = 'User with that e-mail address';
  } else {
    throw new SandboxHttpError(400, 'Name the user: an id in the path, or a client_id param.');
  }
  if (!user?.inConference) throw notFound(what);
  return user;
}

/** The event a member request names: `{id}` in the path, or a `client_id` param. */
export function eventOfRequest(state: SandboxState, request: SandboxRequest): EventRecord {
  const { params } = request;
  if (request.pathId !== undefined) {
    const event = state.events.get(platformId(request.pathId));
    if (!event) throw notFound(`Event ${request.pathId}`);
    return event;
  }
  if (params.client_id) {
    const event = state.eventByClientId(params.client_id);
    if (!event) throw notFound(`Event with client_id "${params.client_id}"`);
    return event;
  }
  throw new SandboxHttpError(400, 'Name the event: an id in the path, or a client_id param.');
}

/**
 * A user named by params under a prefix (`user[id]`, `user[client_id]`, `user[email]`),
 * for RSVPs and schedules; an unknown one is a 422 naming the param that was sent.
 */
export function userOfParams(state: SandboxState, params: FlatParams, prefix: string): UserRecord {
  const candidates: Array<[string, () => UserRecord | undefined]> = [
    [`${prefix}[id]`, () => state.users.get(Number(params[`${prefix}[id]`]))],
    [`${prefix}[client_id]`, () => state.userByClientId(params[`${prefix}[client_id]`] ?? '')],
    [`${prefix}[email]`, () => state.userByEmail(params[`${prefix}[email]`] ?? '')],
  ];
  for (const [param, find] of candidates) {
    if (!params[param]) continue;
    const user = find();
    if (!user?.inConference)
      throw invalidParam(param, `names no user of this conference ("${params[param]}")`);
    return user;
  }
  throw invalidParam(`${prefix}[id]`, `is required (or ${prefix}[client_id])`);
}

function platformId(text: string): number {
  // A non-numeric id cannot name anything: 404 rather than 400, as a missing record would.
  return /^\d{1,15}$/.test(text) ? Number(text) : -1;
}
