import { applyEventParams, newEventRecord } from '../event-writes.js';
import { eventOfRequest } from '../find-records.js';
import { pageOf } from '../paging.js';
import { SandboxHttpError, invalidParam } from '../sandbox-http-error.js';
import { jsonReply, type Handler } from '../sandbox-request.js';
import { eventJson } from '../serialize/event-json.js';

/** GET /event: `event_page`, `limit` (50); ordered by id, as created. */
export const listEvents: Handler = (request, { state }) => {
  const page = pageOf([...state.events.values()], request.params, 'event_page', 50);
  return jsonReply(
    200,
    page.map((event) => eventJson(state, event)),
  );
};

export const getEvent: Handler = (request, { state }) =>
  jsonReply(200, eventJson(state, eventOfRequest(state, request)));

/** POST /event: 200 and the new event (§4.5 rule 1); a taken client_id is 422. */
export const createEvent: Handler = (request, { state, validate, countCreate }) => {
  const { params } = request;
  validate('event.create', request);
  const clientId = params.client_id || undefined;
  if (clientId !== undefined && state.eventByClientId(clientId)) {
    throw new SandboxHttpError(422, 'Event with that client_id already exists.', {
      errors: { client_id: ['has already been taken'] },
    });
  }
  const event = newEventRecord(state);
  applyEventParams(state, event, params);
  if (clientId !== undefined) event.clientIds.push(clientId);
  state.putEvent(event);
  countCreate('event', clientId);
  state.changed();
  return jsonReply(200, eventJson(state, event));
};

/** PUT /event/member/{id} or PUT /event?client_id=X: every field sent is set (§4.5 rule 2). */
export const updateEvent: Handler = (request, { state, validate }) => {
  const { params } = request;
  const event = eventOfRequest(state, request);
  validate('event.update', request);
  const extraClientId = request.pathId !== undefined ? params.client_id : undefined;
  if (extraClientId) {
    const holder = state.eventByClientId(extraClientId);
    if (holder && holder !== event) throw invalidParam('client_id', 'belongs to another event');
  }
  applyEventParams(state, event, params);
  if (extraClientId) state.addEventClientId(event, extraClientId);
  state.changed();
  return jsonReply(200, eventJson(state, event));
};

/** DELETE /event/member/{id}: 200 (§4.5 rule 3) with the deleted event, for the record. */
export const deleteEvent: Handler = (request, { state }) => {
  const event = eventOfRequest(state, request);
  state.deleteEvent(event);
  state.changed();
  return jsonReply(200, eventJson(state, event));
};
