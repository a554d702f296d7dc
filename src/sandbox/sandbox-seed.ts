import { z } from 'zod';
import { applyEventParams, newEventRecord } from './event-writes.js';
import type { SandboxState } from './sandbox-state.js';
import { newUserRecord } from './user-writes.js';

const seedUserSchema = z.strictObject({
  first_name: z.string().min(1),
  last_name: z.string().min(1),
  email: z.email(),
  client_ids: z.array(z.string().min(1).max(64)).default([]),
  /** False (the default) seeds a user known platform-wide only: creating them answers 203. */
  in_conference: z.boolean().default(false),
  membership: z.string().default('member'),
  position: z.string().optional(),
  company: z.string().optional(),
});

const seedEventSchema = z.strictObject({
  client_id: z.string().min(1).max(64).optional(),
  name: z.string().min(1),
  description: z.string().default('<p></p>'),
  start: z.string(),
  finish: z.string(),
  track_name: z.string().optional(),
});

/**
 * A seed file (JSON or YAML): who exists before the first call. Users default to
 * platform-wide (another conference), which is what exercises the 203 path.
 */
export const sandboxSeedSchema = z.strictObject({
  conference_name: z.string().optional(),
  users: z.array(seedUserSchema).default([]),
  exhibitors: z
    .array(z.strictObject({ name: z.string().min(1), client_ids: z.array(z.string()).default([]) }))
    .default([]),
  features: z
    .array(
      z.strictObject({ name: z.string().min(1), lat: z.number().optional(), lng: z.number().optional() }),
    )
    .default([]),
  tracks: z
    .array(z.strictObject({ name: z.string().min(1), color: z.string().default('#1f77b4') }))
    .default([]),
  events: z.array(seedEventSchema).default([]),
});
export type SandboxSeed = z.input<typeof sandboxSeedSchema>;

/** What every sandbox starts with: the key's owner (an admin) and the conference itself. */
export function seedBase(state: SandboxState): void {
  const admin = newUserRecord(state, {
    firstName: 'Sandbox',
    lastName: 'Admin',
    email: 'admin@sandbox.invalid',
    inConference: false,
  });
  admin.currentState = 'admin';
  state.putUser(admin);
  state.adminUserId = admin.id;
  const conference = state.nextId();
  state.features.set(conference, {
    id: conference,
    name: state.conferenceName,
    itemId: state.nextId(),
    lat: null,
    lng: null,
    address: null,
  });
  state.conferenceFeatureId = conference;
}

/** Adds a validated seed to the state; answers what was added. */
export function applySeed(
  state: SandboxState,
  input: unknown,
): { users: number; exhibitors: number; events: number } {
  const seed = sandboxSeedSchema.parse(input);
  if (seed.conference_name) {
    state.conferenceName = seed.conference_name;
    const conference = state.features.get(state.conferenceFeatureId);
    if (conference) conference.name = seed.conference_name;
  }
  for (const entry of seed.users) {
    const user = newUserRecord(state, {
      firstName: entry.first_name,
      lastName: entry.last_name,
      email: entry.email,
      inConference: entry.in_conference,
    });
    user.clientIds = [...entry.client_ids];
    user.membership = entry.membership;
    user.position = entry.position ?? null;
    user.companyName = entry.company ?? null;
    state.putUser(user);
  }
  for (const entry of seed.exhibitors) {
    const id = state.nextId();
    state.exhibitors.set(id, { id, name: entry.name, clientIds: [...entry.client_ids] });
  }
  for (const entry of seed.features) {
    const id = state.nextId();
    state.features.set(id, {
      id,
      name: entry.name,
      itemId: state.nextId(),
      lat: entry.lat ?? null,
      lng: entry.lng ?? null,
      address: null,
    });
  }
  for (const entry of seed.tracks) {
    const id = state.nextId();
    state.tracks.set(id, { id, name: entry.name, position: state.tracks.size + 1, color: entry.color });
  }
  for (const entry of seed.events) {
    const event = newEventRecord(state);
    const params: Record<string, string> = {
      'event[item_attributes][display_value]': entry.name,
      'event[item_attributes][article][content]': entry.description,
      'event[start]': entry.start,
      'event[finish]': entry.finish,
    };
    if (entry.track_name) params['event[track_name]'] = entry.track_name;
    applyEventParams(state, event, params);
    if (entry.client_id) event.clientIds.push(entry.client_id);
    state.putEvent(event);
  }
  state.changed();
  return { users: seed.users.length, exhibitors: seed.exhibitors.length, events: seed.events.length };
}
