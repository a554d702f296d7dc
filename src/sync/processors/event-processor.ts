import type { PlannedIntent } from '../../model/planned-intent.js';
import type { FlatParams } from '../../model/params.js';
import type { PlatformEvent } from '../../platform/response-schemas.js';
import { clearingParams, withoutBlanks } from '../../platform/write-params/clear-params.js';
import { MAX_PAGE_LIMIT } from '../../platform/paginate.js';
import type { CallCounter, ProcessOutcome } from './process-outcome.js';
import { isAlreadyThere, isOutcomeUnknown, isStatus } from './process-outcome.js';
import type { Processor, ProcessorContext } from './processor.js';
import { clearingNote, isRemoval, MAX_CREATE_TRIES, retireShared, withoutClientId } from './processor.js';

/**
 * Events (sessions, §4.5): created with their `client_id`, updated and deleted by it, never
 * by the platform id the ledger holds, which a conference reset or restored from a backup
 * may have given to another event (docs/sync-engine.md, "Who is who"). A create refused because the
 * client_id exists, or whose answer was lost, is reconciled: the event is found by its
 * client_id and updated, never created twice.
 */
export const processEvent: Processor = async (item, context, counter) => {
  if (isRemoval(item)) return removeEvent(item, context, counter);
  if (item.plannedAction === 'update' || context.ids.has('event', item.key)) {
    const ref = { clientId: item.key };
    try {
      // Fields the source cleared are in the params empty (plan/cleared-fields.ts).
      const clearing = clearingParams(withoutClientId(item.params));
      const event = await counter.call(() => context.platform.events.update(ref, clearing.params));
      return remember(
        item,
        context,
        counter.done('updated', { platformId: event.id, ...clearingNote(clearing) }),
      );
    } catch (error) {
      if (!isStatus(error, 404)) throw error;
      context.ids.delete('event', item.key);
    }
  }
  return createEvent(item, context, counter);
};

async function createEvent(
  item: PlannedIntent,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<ProcessOutcome> {
  // A create sends no empty value (a found event is updated with the same details).
  const params: FlatParams = { ...withoutBlanks(item.params), client_id: item.key };
  for (let tries = 1; ; tries += 1) {
    try {
      const event = await counter.call(() => context.platform.events.create(params));
      return remember(item, context, counter.done('created', { platformId: event.id, httpStatus: 200 }));
    } catch (error) {
      const lost = isOutcomeUnknown(error);
      if (!lost && !isAlreadyThere(error, 'client_id')) throw error;
      const found = await findByClientId(item.key, context, counter);
      if (!found) {
        if (lost && tries < MAX_CREATE_TRIES) continue;
        throw error;
      }
      const event = await counter.call(() =>
        context.platform.events.update(found.id, withoutClientId(params)),
      );
      const note = lost
        ? 'the answer to the create was lost; found the event by client_id and updated it'
        : 'an event with this client_id already existed; it was updated';
      return remember(
        item,
        context,
        counter.done(lost ? 'created' : 'updated', { platformId: event.id, message: note }),
      );
    }
  }
}

/** `GET /event/member?client_id=`, or a scan of the listing when the platform refuses that form. */
export async function findByClientId(
  clientId: string,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<PlatformEvent | undefined> {
  try {
    return await counter.call(() => context.platform.events.get({ clientId }));
  } catch (error) {
    if (isStatus(error, 404)) return undefined;
    if (!isStatus(error, 400) && !isStatus(error, 405) && !isStatus(error, 422)) throw error;
  }
  counter.calls += 1;
  for await (const event of context.platform.events.list({ limit: MAX_PAGE_LIMIT })) {
    if (event.client_ids?.includes(clientId)) return event;
  }
  return undefined;
}

async function removeEvent(
  item: PlannedIntent,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<ProcessOutcome> {
  const id = await context.ids.get('event', item.key);
  const retired = await retireShared(item, 'event', id, context, counter);
  if (retired) return retired;
  try {
    await counter.call(() => context.platform.events.delete({ clientId: item.key }));
  } catch (error) {
    if (!isStatus(error, 404)) throw error;
  }
  context.ids.delete('event', item.key);
  return counter.done('deleted', { platformId: id ?? null });
}

function remember(item: PlannedIntent, context: ProcessorContext, outcome: ProcessOutcome): ProcessOutcome {
  if (typeof outcome.platformId === 'number') context.ids.set('event', item.key, outcome.platformId);
  return outcome;
}
