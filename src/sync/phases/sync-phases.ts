import type { PlannedIntent } from '../../model/planned-intent.js';
import { isParentKind, type IntentKind } from '../../model/intent.js';

/**
 * The order of a run (docs/design.md, "The flow of one run"): users, then events (an event may name its speakers
 * by user client_id), then what links them, then
 * mirror-mode deletes in the reverse order so that links go before the objects they name.
 * RSVPs go after whole schedules and their mirror clears: a schedule `PUT` replaces the
 * user's schedule, so an RSVP sent at the same time for that user could be wiped by it.
 */
export const PHASES = ['users', 'events', 'links', 'unlinks', 'rsvps', 'removals'] as const;
export type PhaseName = (typeof PHASES)[number];

/** The kinds whose planned intents a phase reads from the ledger (`phaseOf` sorts deletes from upserts). */
export const PHASE_KINDS: Record<PhaseName, readonly IntentKind[]> = {
  users: ['user'],
  events: ['event'],
  links: ['speaker', 'schedule', 'contact', 'check_in'],
  unlinks: ['speaker', 'schedule', 'contact', 'rsvp'],
  rsvps: ['rsvp'],
  removals: ['user', 'event'],
};

export const PHASE_LABELS: Record<PhaseName, string> = {
  users: 'users',
  events: 'events',
  links: 'speakers, schedules, contacts, check-ins',
  unlinks: 'mirror deletes of links',
  rsvps: 'RSVPs',
  removals: 'mirror deletes of users and events',
};

export function phaseOf(intent: Pick<PlannedIntent, 'kind' | 'plannedAction'>): PhaseName {
  const parent = isParentKind(intent.kind);
  if (intent.plannedAction === 'delete' || intent.plannedAction === 'retire')
    return parent ? 'removals' : 'unlinks';
  if (intent.kind === 'rsvp') return 'rsvps';
  if (!parent) return 'links';
  return intent.kind === 'user' ? 'users' : 'events';
}

/** Work split by phase, each list keeping plan order. */
export function splitByPhase<T extends Pick<PlannedIntent, 'kind' | 'plannedAction'>>(
  work: readonly T[],
): Map<PhaseName, T[]> {
  const phases = new Map<PhaseName, T[]>(PHASES.map((phase) => [phase, []]));
  for (const item of work) phases.get(phaseOf(item))?.push(item);
  return phases;
}
