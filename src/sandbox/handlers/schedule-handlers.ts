import { eventOfRequest, userOfParams } from '../find-records.js';
import { invalidParam } from '../sandbox-http-error.js';
import { jsonReply, type Handler, type HandlerContext } from '../sandbox-request.js';
import type { SandboxState } from '../sandbox-state.js';
import { scheduleEntryJson } from '../serialize/event-json.js';
import type { EventRecord } from '../state-types.js';
import type { FlatParams } from '../../model/params.js';
import { indexedList, unflattenParams } from '../../platform/params.js';

/** The §2.6 entries of a user's whole schedule. */
function scheduleReply(state: SandboxState, userId: number): ReturnType<typeof jsonReply> {
  const entries = state
    .scheduleOf(userId)
    .map((id) => state.events.get(id))
    .filter((event): event is EventRecord => event !== undefined)
    .map(scheduleEntryJson);
  return jsonReply(200, entries);
}

function rsvp(adding: boolean): Handler {
  return (request, { state, validate }: HandlerContext) => {
    validate(adding ? 'rsvp.add' : 'rsvp.remove', request);
    const event = eventOfRequest(state, request);
    const user = userOfParams(state, request.params, 'user');
    const current = state.scheduleOf(user.id);
    // An event already in the schedule keeps its place: adding twice changes nothing.
    if (adding && !current.includes(event.id)) state.schedules.set(user.id, [...current, event.id]);
    if (!adding)
      state.schedules.set(
        user.id,
        current.filter((id) => id !== event.id),
      );
    state.changed();
    return scheduleReply(state, user.id);
  };
}

/** POST /event/rsvp/{id}: adds the event to the user's schedule; answers the whole schedule. */
export const addRsvp = rsvp(true);
/** DELETE /event/rsvp/{id}: removes it; removing an event that is not there is no error. */
export const removeRsvp = rsvp(false);

/** PUT /event/schedule: the listed events become the user's whole schedule (§2.6 answer). */
export const replaceSchedule: Handler = (request, { state, validate }) => {
  const { params } = request;
  validate('schedule.replace', request);
  const user = userOfParams(state, params, 'user');
  const eventIds = eventIdsOf(state, params);
  state.schedules.set(user.id, [...new Set(eventIds)]);
  state.changed();
  return scheduleReply(state, user.id);
};

function eventIdsOf(state: SandboxState, params: FlatParams): number[] {
  const listed = unflattenParams(params).event_client_ids;
  const indexes =
    typeof listed === 'object' && listed !== null && !Array.isArray(listed)
      ? Object.keys(listed)
          .filter((key) => /^\d+$/.test(key))
          .sort((a, b) => Number(a) - Number(b))
      : [];
  const clientIds = indexedList<string>(listed ?? {});
  return clientIds.flatMap((clientId, position) => {
    if (clientId === '') return [];
    const event = state.eventByClientId(clientId);
    if (!event)
      throw invalidParam(`event_client_ids[${indexes[position]}]`, `names no event ("${clientId}")`);
    return [event.id];
  });
}
