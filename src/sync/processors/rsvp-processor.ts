import type { FlatParams } from '../../model/params.js';
import { isStatus } from './process-outcome.js';
import type { Processor } from './processor.js';
import { isRemoval, splitLinkKey } from './processor.js';

/**
 * One event in a user's schedule (§4.5 RSVP), key `<user client_id>/<event client_id>`,
 * for additive feeds. Adding twice leaves one entry; removing what is not there is done.
 */
export const processRsvp: Processor = async (item, context, counter) => {
  const [userClientId, eventClientId] = splitLinkKey(item.key);
  const params = userParams(item.params, userClientId);
  const event = context.ids.get('event', eventClientId) ?? { clientId: eventClientId };
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

function userParams(params: FlatParams, userClientId: string): FlatParams {
  const user: FlatParams = {};
  for (const name of ['user[client_id]', 'user[id]', 'user[email]']) {
    const value = params[name];
    if (value !== undefined) user[name] = value;
  }
  if (Object.keys(user).length > 0) return user;
  // Keys name a user as `#123` (platform id), `email:a@b` or a client_id (mapping/intent-identity.ts).
  if (userClientId.startsWith('#')) return { 'user[id]': userClientId.slice(1) };
  if (userClientId.startsWith('email:')) return { 'user[email]': userClientId.slice('email:'.length) };
  return { 'user[client_id]': userClientId };
}
