import type { IntentKind } from '../../model/intent.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { processCheckIn } from './check-in-processor.js';
import { processContact } from './contact-processor.js';
import { processEvent } from './event-processor.js';
import type { ProcessOutcome } from './process-outcome.js';
import { CallCounter, failureOutcome } from './process-outcome.js';
import type { Processor, ProcessorContext } from './processor.js';
import { processRsvp } from './rsvp-processor.js';
import { processSchedule } from './schedule-processor.js';
import { processSpeaker } from './speaker-processor.js';
import { processUser } from './user-processor.js';

/** One processor per intent kind. */
export const PROCESSORS: Record<IntentKind, Processor> = {
  user: processUser,
  event: processEvent,
  speaker: processSpeaker,
  schedule: processSchedule,
  rsvp: processRsvp,
  contact: processContact,
  check_in: processCheckIn,
};

/**
 * Runs the intent's processor and turns any failure into a `failed` outcome: a row's
 * outcome is a value, never an exception (docs/design.md, "The flow of one run").
 */
export async function processIntent(item: PlannedIntent, context: ProcessorContext): Promise<ProcessOutcome> {
  const counter = new CallCounter();
  try {
    return await PROCESSORS[item.kind](item, context, counter);
  } catch (error) {
    return failureOutcome(error, counter.calls);
  }
}
