import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import type { FlatParams } from '../../model/params.js';
import { isAlreadyThere, isStatus } from './process-outcome.js';
import type { Processor, ProcessorContext } from './processor.js';
import { clientIdOfPart, splitLinkKey } from '../../model/link-key.js';
import { isRemoval, retireSharedLink } from './processor.js';

/**
 * A user's contact (§4.3), key `<user>/<user|exhibitor>:<id>` (the user a key part, model/link-key.ts). The contact is
 * named by platform id (`user_id` / `exhibitor_id`); a user contact given by client_id is
 * resolved through the id map.
 */
export const processContact: Processor = async (item, context, counter) => {
  const retired = await retireSharedLink(item, 'contact', context, counter);
  if (retired) return retired;
  const [ownerPart, target] = splitLinkKey(item.key);
  const params = await contactParams(item.params, clientIdOfPart(ownerPart), target, context);
  if (isRemoval(item)) {
    try {
      await counter.call(() => context.platform.contacts.remove(params));
    } catch (error) {
      if (!isStatus(error, 404)) throw error;
    }
    return counter.done(item.plannedAction === 'delete' ? 'deleted' : 'updated');
  }
  try {
    await counter.call(() => context.platform.contacts.add(params));
  } catch (error) {
    if (!isAlreadyThere(error)) throw error;
  }
  return counter.done(item.plannedAction === 'create' ? 'created' : 'updated');
};

async function contactParams(
  params: FlatParams,
  owner: string,
  target: string,
  context: ProcessorContext,
): Promise<FlatParams> {
  const copy: FlatParams = { ...params };
  if (copy.client_id === undefined) copy.client_id = owner;
  if (copy.user_id !== undefined || copy.exhibitor_id !== undefined) return copy;
  const colon = target.indexOf(':');
  const type = target.slice(0, colon);
  const id = target.slice(colon + 1);
  if (type === 'exhibitor' && /^\d+$/.test(id)) return { ...copy, exhibitor_id: id };
  if (type === 'user') {
    const platformId = /^\d+$/.test(id) ? Number(id) : await context.ids.get('user', id);
    if (platformId !== undefined) return { ...copy, user_id: String(platformId) };
  }
  throw new EvsyncError(
    `Contact "${target}" of user "${owner}" has no platform id: sync that user first, or give user_id/exhibitor_id.`,
    { code: CODE.EVSYNC_CONTACT_UNRESOLVED },
  );
}
