import type { FlatParams } from '../../model/params.js';
import { readUserPart } from '../../model/link-key.js';
import type { Processor } from './processor.js';
import { isRemoval, retireSharedLink } from './processor.js';

/**
 * A user's whole schedule (§4.5 `PUT /event/schedule`), key = the user as a key part.
 * Replacement is idempotent, so a lost answer is simply sent again by the client. A
 * mirror delete clears the schedule.
 */
export const processSchedule: Processor = async (item, context, counter) => {
  const retired = await retireSharedLink(item, 'schedule', context, counter);
  if (retired) return retired;
  const params: FlatParams = isRemoval(item) ? userOf(item.key) : withUser(item.params, item.key);
  const entries = await counter.call(() => context.platform.events.replaceSchedule(params));
  if (isRemoval(item))
    return counter.done('deleted', { message: `schedule cleared (${entries.length} left)` });
  return counter.done(item.plannedAction === 'create' ? 'created' : 'updated');
};

function withUser(params: FlatParams, key: string): FlatParams {
  if (params['user[client_id]'] !== undefined || params['user[id]'] !== undefined) return params;
  return { ...userOf(key), ...params };
}

/** Schedule keys are the user's client_id as a key part, or `#123` for a platform id (model/link-key.ts). */
function userOf(key: string): FlatParams {
  const user = readUserPart(key);
  return 'id' in user
    ? { 'user[id]': user.id }
    : { 'user[client_id]': 'clientId' in user ? user.clientId : key };
}
