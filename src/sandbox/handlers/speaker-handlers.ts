import type { FlatParams } from '../../model/params.js';
import { eventOfRequest } from '../find-records.js';
import { matchesTerms, pageOf } from '../paging.js';
import { invalidParam, notFound } from '../sandbox-http-error.js';
import { formatted, jsonReply, type Handler, type SandboxRequest } from '../sandbox-request.js';
import type { SandboxState } from '../sandbox-state.js';
import { speakerLinkJson } from '../serialize/event-json.js';
import { userJson } from '../serialize/user-json.js';
import type { UserRecord } from '../state-types.js';

function speakerPage(request: SandboxRequest, state: SandboxState, users: UserRecord[]): ReturnType<Handler> {
  const matching = users.filter((user) =>
    matchesTerms(request.params.terms, [user.firstName, user.lastName, user.companyName]),
  );
  const page = pageOf(matching, request.params, 'speaker_page', 25);
  return formatted(
    request,
    200,
    page.map((user) => userJson(state, user)),
    'users',
  );
}

/** GET /speaker: the users who speak at any event, as user objects (§2.5). */
export const listSpeakers: Handler = (request, { state }) => {
  const ids = new Set<number>();
  for (const event of state.events.values()) for (const speaker of event.speakers) ids.add(speaker.userId);
  const users = [...ids]
    .sort((a, b) => a - b)
    .map((id) => state.users.get(id))
    .filter((user): user is UserRecord => user?.inConference === true);
  return speakerPage(request, state, users);
};

/** GET /speaker/event/{id}. */
export const listEventSpeakers: Handler = (request, { state }) => {
  const event = eventOfRequest(state, request);
  const users = event.speakers
    .map((speaker) => state.users.get(speaker.userId))
    .filter((user): user is UserRecord => user !== undefined);
  return speakerPage(request, state, users);
};

/** The user named by exactly one of `speaker[user_id]` and `speaker[user_client_id]`. */
function speakerUser(state: SandboxState, params: FlatParams): UserRecord {
  const byId = params['speaker[user_id]'];
  const byClientId = params['speaker[user_client_id]'];
  const param = byId ? 'speaker[user_id]' : 'speaker[user_client_id]';
  const user = byId ? state.users.get(Number(byId)) : state.userByClientId(byClientId ?? '');
  if (!user?.inConference)
    throw invalidParam(param, `names no user of this conference ("${byId || byClientId}")`);
  return user;
}

/** POST /speaker/event/{id}: links the user (or changes the link's type); answers the link. */
export const addSpeaker: Handler = (request, { state, validate }) => {
  validate('speaker.add', request);
  const event = eventOfRequest(state, request);
  const user = speakerUser(state, request.params);
  const type = request.params['speaker[type_name]'] || 'speaker';
  const existing = event.speakers.find((speaker) => speaker.userId === user.id);
  if (existing) existing.type = type;
  else event.speakers.push({ userId: user.id, type });
  state.changed();
  return jsonReply(200, speakerLinkJson(event.id, user.id, type));
};

/** DELETE /speaker/event/{id}: 404 when the user is not a speaker of that event. */
export const removeSpeaker: Handler = (request, { state, validate }) => {
  validate('speaker.remove', request);
  const event = eventOfRequest(state, request);
  const user = speakerUser(state, request.params);
  const link = event.speakers.find((speaker) => speaker.userId === user.id);
  if (!link) throw notFound(`Speaker ${user.id} of event ${event.id}`);
  event.speakers = event.speakers.filter((speaker) => speaker !== link);
  state.changed();
  return jsonReply(200, speakerLinkJson(event.id, user.id, link.type));
};
