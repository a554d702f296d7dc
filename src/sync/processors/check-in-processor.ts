import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import { isOutcomeUnknown } from './process-outcome.js';
import type { Processor } from './processor.js';
import { isKeyOwners } from '../plan/key-owners-check-in.js';

/** A check-in POST whose answer never came back; the plan holds such a check-in back later. */
export const CHECK_IN_OUTCOME_UNKNOWN = CODE.EVSYNC_CHECK_IN_OUTCOME_UNKNOWN;

/**
 * Check-ins (§4.1) are plain creates with nothing to find them by afterwards. A lost
 * answer is therefore NOT sent again: it ends `failed` with a note, and an operator decides
 * (`evsync retry`) rather than risking a second check-in.
 */
export const processCheckIn: Processor = async (item, context, counter) => {
  if (item.plannedAction === 'update') {
    // The row changed after its check-in was posted. §4.1 has no update: a second POST
    // would be a second check-in, not a change of the first.
    throw new EvsyncError(
      `Check-in "${item.key}" was posted in an earlier run and the platform cannot change a check-in (§4.1 has create only), so nothing was sent. Restore the row as it was, or give it a new check_in_id to post it as a new check-in.`,
      { code: CODE.EVSYNC_CHECK_IN_UNCHANGEABLE },
    );
  }
  await context.markSendStarted(item);
  try {
    const checkIn = await counter.call(() => context.platform.checkIns.create(item.params));
    return counter.done('created', { platformId: checkIn.id });
  } catch (error) {
    if (!isOutcomeUnknown(error)) throw error;
    throw new EvsyncError(
      'The answer to the check-in was lost; it may have been recorded. It was not sent again to avoid a duplicate. ' +
        (isKeyOwners(item)
          ? "`evsync retry RUN` looks it up among the key owner's check-ins and posts it only if it is missing."
          : "Nothing can look up a check-in in another user's name: check the platform, then `evsync retry RUN --client-id KEY --resend-unknown` if it is missing."),
      { code: CHECK_IN_OUTCOME_UNKNOWN, cause: error },
    );
  }
};
