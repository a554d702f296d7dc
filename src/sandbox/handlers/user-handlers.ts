import { emailParam } from '../../platform/vendor.js';
import { matchesTerms, pageOf } from '../paging.js';
import { SandboxHttpError, invalidParam } from '../sandbox-http-error.js';
import {
  emptyReply,
  formatted,
  xmlReply,
  type Handler,
  type Reply,
  type SandboxRequest,
} from '../sandbox-request.js';
import { userAtomDocument, userAtomFeed } from '../serialize/user-atom.js';
import { userJson } from '../serialize/user-json.js';
import { userOfRequest } from '../find-records.js';
import type { SandboxState } from '../sandbox-state.js';
import type { UserRecord } from '../state-types.js';
import { applyUserParams, newUserRecord } from '../user-writes.js';

const ATOM = 'application/atom+xml; charset=utf-8';

function userReply(
  request: SandboxRequest,
  state: SandboxState,
  status: number,
  user: UserRecord,
  vendor: string,
): Reply {
  if (request.format === 'atom')
    return xmlReply(status, userAtomDocument(user, request.baseUrl, vendor), ATOM);
  return formatted(request, status, userJson(state, user), 'user');
}

/** GET /user: `user_page`, `limit` (25), `terms`. */
export const listUsers: Handler = (request, { state, vendor }) => {
  const { params } = request;
  const matching = state
    .conferenceUsers()
    .filter((user) =>
      matchesTerms(params.terms, [
        user.firstName,
        user.lastName,
        user.email,
        user.companyName,
        ...user.clientIds,
      ]),
    );
  const page = pageOf(matching, params, 'user_page', 25);
  if (request.format === 'atom') return xmlReply(200, userAtomFeed(page, request.baseUrl, vendor), ATOM);
  return formatted(
    request,
    200,
    page.map((user) => userJson(state, user)),
    'users',
  );
};

/** GET /user/member/{id}, or by `client_id`, `id` or the e-mail param. */
export const getUser: Handler = (request, { state, vendor }) =>
  userReply(request, state, 200, userOfRequest(state, request, vendor), vendor);

/**
 * POST /user. A user already known platform-wide (by client_id or e-mail) but not in this
 * conference is attached: 203, details ignored (§4.2 rules 1–2). One already here is 422.
 */
export const createUser: Handler = (request, { state, vendor, validate, countCreate }) => {
  const { params } = request;
  validate('user.create', request);
  const clientId = params.client_id || undefined;
  const email = params[emailParam(vendor)] ?? '';
  const byClient = clientId === undefined ? undefined : state.userByClientId(clientId);
  const byEmail = state.userByEmail(email);
  if (byClient && byEmail && byClient !== byEmail) {
    throw invalidParam('client_id', `belongs to another user than ${emailParam(vendor)}`);
  }
  const existing = byClient ?? byEmail;
  if (existing?.inConference) {
    const param = byClient ? 'client_id' : emailParam(vendor);
    throw new SandboxHttpError(422, 'User already exists in this conference.', {
      errors: { [param]: ['has already been taken'] },
    });
  }
  if (existing) {
    existing.inConference = true;
    if (clientId !== undefined) state.addUserClientId(existing, clientId);
    countCreate('user', clientId);
    state.changed();
    return userReply(request, state, 203, existing, vendor);
  }
  const user = newUserRecord(state, {
    firstName: params['user[first_name]'] ?? '',
    lastName: params['user[last_name]'] ?? '',
    email,
    inConference: true,
  });
  applyUserParams(state, user, params, vendor);
  if (clientId !== undefined) user.clientIds.push(clientId);
  state.putUser(user);
  countCreate('user', clientId);
  state.changed();
  return userReply(request, state, 200, user, vendor);
};

/** PUT /user/member/{id}: every field sent is set (§4.2 rule 3). */
export const updateUser: Handler = (request, { state, vendor, validate }) => {
  const { params } = request;
  const user = userOfRequest(state, request, vendor);
  validate('user.update', request);
  const email = params[emailParam(vendor)];
  const owner = email ? state.userByEmail(email) : undefined;
  if (owner && owner !== user) throw invalidParam(emailParam(vendor), 'has already been taken');
  // With an id in the path, a client_id param is one more client id of this user.
  const extraClientId = request.pathId !== undefined ? params.client_id : undefined;
  if (extraClientId) {
    const holder = state.userByClientId(extraClientId);
    if (holder && holder !== user) throw invalidParam('client_id', 'belongs to another user');
  }
  applyUserParams(state, user, params, vendor);
  if (extraClientId) state.addUserClientId(user, extraClientId);
  state.changed();
  return userReply(request, state, 200, user, vendor);
};

/** DELETE /user/member/{id}: out of this conference only; the answer has no body. */
export const deleteUser: Handler = (request, { state, vendor }) => {
  const user = userOfRequest(state, request, vendor);
  state.removeUserFromConference(user);
  state.changed();
  return emptyReply(200);
};
