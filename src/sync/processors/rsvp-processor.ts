import type { FlatParams } from '../../model/params.js';
import { isStatus } from './process-outcome.js';
import type { Processor } from './processor.js';
import { clientIdOfPart, readUserPart, splitLinkKey, type UserPart } from '../../model/link-key.js';
import { isRemoval, retireSharedLink } from './processor.js';

/**
 * One event in a user's schedule (§4.5 RSVP), key `<user>/<event>` (key parts, model/link-key.ts),
 * for additive feeds. Adding twice leaves one entry; removing what is not there is done.
 */
export const processRsvp: Processor = async (item, context, counter) => {
  const retired = await retireSharedLink(item, 'rsvp', context, counter);
  if (retired) return retired;
  const [userPart, eventPart] = splitLinkKey(item.key);
  const eventClientId = clientIdOfPart(eventPart);
  const params = userParams(item.params, readUserPart(userPart));
  // By its key, never by a platform id the ledger holds (event-processor.ts).
  const event = { clientId: eventClientId };
  if (isRemoval(item)) {
    try {
      await counter.call(() => context.platform.events.rsvpRemove(event, params));
    } catch (error) {
      if (!isStatus(error, 404)) throw error;
    }
    return counter.done(item.plannedAction === 'delete' ? 'deleted' : 'updated');
  }
  await counter.call(() => context.platform.events.rsvpAdd(event, params));
  return counter.done(item.plannedAction === 'create' ? 'created' : 'updated');
};

function userParams(params: FlatParams, user: UserPart): FlatParams {
  const given: FlatParams = {};
  for (const name of ['user[client_id]', 'user[id]', 'user[email]']) {
    const value = params[name];
    if (value !== undefined) given[name] = value;
  }
  if (Object.keys(given).length > 0) return given;
  if ('id' in user) return { 'user[id]': user.id };
  if ('email' in user) return { 'user[email]': user.email };
  return { 'user[client_id]': user.clientId };
}
