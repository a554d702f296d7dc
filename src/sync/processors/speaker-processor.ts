import type { MemberRef } from '../../platform/member-ref.js';
import type { FlatParams } from '../../platform/params.js';
import { isAlreadyThere, isOutcomeUnknown, isStatus } from './process-outcome.js';

const MAX_TRIES = 3;
import type { Processor, ProcessorContext } from './processor.js';
import { isRemoval, splitLinkKey, withoutClientId } from './processor.js';

/**
 * Speaker links (§4.4), key `<event client_id>/<user client_id>`. The plan's diff decides:
 * a new or changed link is added (adding again with another type changes the type), a
 * removed one is removed. An add refused as "already a speaker" and a remove of a link
 * that is not there both already have the effect asked for.
 */
export const processSpeaker: Processor = async (item, context, counter) => {
  const [eventClientId, userClientId] = splitLinkKey(item.key);
  const event = eventRef(eventClientId, context);
  const params = linkParams(item.params, userClientId, context, typeof event === 'number');
  if (isRemoval(item)) {
    try {
      await counter.call(() => context.platform.speakers.remove(event, removeParams(params)));
    } catch (error) {
      if (!isStatus(error, 404) && !isAlreadyThere(error)) throw error;
    }
    return counter.done(item.plannedAction === 'delete' ? 'deleted' : 'updated');
  }
  for (let tries = 1; ; tries += 1) {
    try {
      await counter.call(() => context.platform.speakers.add(event, params));
      break;
    } catch (error) {
      if (isAlreadyThere(error)) break;
      // A link added twice is still one link: a lost answer is simply sent again.
      if (!isOutcomeUnknown(error) || tries >= MAX_TRIES) throw error;
    }
  }
  return counter.done(item.plannedAction === 'create' ? 'created' : 'updated');
};

function eventRef(eventClientId: string, context: ProcessorContext): MemberRef {
  return context.ids.get('event', eventClientId) ?? { clientId: eventClientId };
}

/** Exactly one of `speaker[user_id]` and `speaker[user_client_id]` (§4.4). */
function linkParams(
  params: FlatParams,
  userClientId: string,
  context: ProcessorContext,
  byId: boolean,
): FlatParams {
  const copy = byId ? withoutClientId(params) : { ...params };
  if (copy['speaker[user_id]'] === undefined && copy['speaker[user_client_id]'] === undefined) {
    // Keys name a user by platform id as `#123` (mapping/intent-identity.ts).
    if (userClientId.startsWith('#')) return { ...copy, 'speaker[user_id]': userClientId.slice(1) };
    const userId = context.ids.get('user', userClientId);
    if (userId !== undefined) copy['speaker[user_id]'] = String(userId);
    else copy['speaker[user_client_id]'] = userClientId;
  }
  return copy;
}

function removeParams(params: FlatParams): FlatParams {
  const { 'speaker[type_name]': _type, ...rest } = params;
  return rest;
}
