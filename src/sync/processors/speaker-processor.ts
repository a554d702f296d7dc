import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import type { MemberRef } from '../../platform/member-ref.js';
import type { FlatParams } from '../../model/params.js';
import type { CallCounter } from './process-outcome.js';
import { isAlreadyThere, isOutcomeUnknown, isStatus } from './process-outcome.js';
import type { Processor, ProcessorContext } from './processor.js';
import { clientIdOfPart, readUserPart, splitLinkKey, type UserPart } from '../../model/link-key.js';
import { isRemoval, retireSharedLink } from './processor.js';

/** Sends of one add whose answer was lost, before the loss is the intent's failure. */
const MAX_TRIES = 3;

/**
 * Speaker links (§4.4), key `<event>/<user>` (two key parts, model/link-key.ts). The plan's diff decides:
 * a new or changed link is added, a removed one is removed. A remove of a link that is not
 * there already has the effect asked for, and so has a new plain `speaker` link refused as
 * "already a speaker". A changed link, or a new one of another type, refused so is removed
 * and added as the source says: §4.4 does not say that adding again changes the type.
 */
export const processSpeaker: Processor = async (item, context, counter) => {
  const retired = await retireSharedLink(item, 'speaker', context, counter);
  if (retired) return retired;
  const [eventPart, userPart] = splitLinkKey(item.key);
  // Both named by their keys, never by platform ids the ledger holds: a conference reset or
  // restored from a backup may have given those to others (docs/sync-engine.md, "Who is who").
  const event: MemberRef = { clientId: clientIdOfPart(eventPart) };
  const params = linkParams(item.params, readUserPart(userPart));
  if (isRemoval(item)) {
    try {
      await counter.call(() => context.platform.speakers.remove(event, removeParams(params)));
    } catch (error) {
      if (!isStatus(error, 404) && !isAlreadyThere(error)) throw error;
    }
    return counter.done(item.plannedAction === 'delete' ? 'deleted' : 'updated');
  }
  const typed = (params['speaker[type_name]'] ?? 'speaker') !== 'speaker';
  if (
    (await addLink(event, params, context, counter)) === 'already there' &&
    (item.plannedAction === 'update' || typed)
  ) {
    await counter.call(() => context.platform.speakers.remove(event, removeParams(params)));
    if ((await addLink(event, params, context, counter)) === 'already there') {
      throw new EvsyncError(
        `The platform still says "${item.key}" is a speaker link after it was removed, so its type may not be the source's "${params['speaker[type_name]'] ?? 'speaker'}". Check the link on the platform; the next run sends it again.`,
        { code: CODE.EVSYNC_SPEAKER_LINK_STUCK },
      );
    }
  }
  return counter.done(item.plannedAction === 'create' ? 'created' : 'updated');
};

async function addLink(
  event: MemberRef,
  params: FlatParams,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<'added' | 'already there'> {
  for (let tries = 1; ; tries += 1) {
    try {
      await counter.call(() => context.platform.speakers.add(event, params));
      return 'added';
    } catch (error) {
      if (isAlreadyThere(error)) {
        // After a lost answer, "already" is our own first add arriving: it is done.
        return tries > 1 ? 'added' : 'already there';
      }
      // A link added twice is still one link: a lost answer is simply sent again.
      if (!isOutcomeUnknown(error) || tries >= MAX_TRIES) throw error;
    }
  }
}

/**
 * Exactly one of `speaker[user_id]` (a platform id the source itself gives) and
 * `speaker[user_client_id]` (§4.4).
 */
function linkParams(params: FlatParams, user: UserPart): FlatParams {
  const copy = { ...params };
  if (copy['speaker[user_id]'] === undefined && copy['speaker[user_client_id]'] === undefined) {
    if ('id' in user) return { ...copy, 'speaker[user_id]': user.id };
    copy['speaker[user_client_id]'] = 'clientId' in user ? user.clientId : '';
  }
  return copy;
}

function removeParams(params: FlatParams): FlatParams {
  const { 'speaker[type_name]': _type, ...rest } = params;
  return rest;
}
