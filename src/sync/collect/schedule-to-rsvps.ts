import type { Intent } from '../../model/intent.js';
import { keyPart, linkKey } from '../../model/link-key.js';

/**
 * A schedule intent as single RSVPs (`schedule_mode: rsvp`): one add per listed event,
 * keyed `<user>/<event>` (key parts) like RSVP rows. Nothing is removed: additive feeds only add.
 */
export function scheduleToRsvps(schedule: Intent): Intent[] {
  const user: Record<string, string> = {};
  for (const name of ['user[client_id]', 'user[id]']) {
    const value = schedule.params[name];
    if (value !== undefined) user[name] = value;
  }
  const userDeps = schedule.dependsOn.filter((dep) => dep.kind === 'user');
  const rsvps: Intent[] = [];
  for (const [name, eventClientId] of Object.entries(schedule.params)) {
    if (!name.startsWith('event_client_ids[') || eventClientId === '') continue;
    rsvps.push({
      kind: 'rsvp',
      key: linkKey(schedule.key, keyPart(eventClientId)),
      op: 'upsert',
      params: { ...user, client_id: eventClientId },
      origin: schedule.origin,
      dependsOn: [...userDeps, { kind: 'event', clientId: eventClientId }],
    });
  }
  return rsvps;
}
