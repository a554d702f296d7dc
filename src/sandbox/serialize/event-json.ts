import { isoMicros } from '../clock.js';
import type { SandboxState } from '../sandbox-state.js';
import type { EventRecord } from '../state-types.js';

/** The event object of spec §2.4, times in UTC with microseconds. */
export function eventJson(state: SandboxState, event: EventRecord): Record<string, unknown> {
  const track = event.trackId === null ? undefined : state.tracks.get(event.trackId);
  const location = event.locationId === null ? undefined : state.features.get(event.locationId);
  return {
    id: event.id,
    start: isoMicros(event.start),
    finish: isoMicros(event.finish),
    parent_id: event.parentId,
    track: track ? { id: track.id, position: track.position, name: track.name, color: track.color } : null,
    name: event.name,
    updated_on: isoMicros(event.updatedOn),
    tags: event.tags.map((name) => ({ id: state.tagId(name), tag_name: name })),
    content: event.content,
    icon_id: null,
    client_ids: [...event.clientIds],
    location: location ? { id: location.id, name: location.name } : null,
    speakers: event.speakers.map((speaker) => speakerLinkJson(event.id, speaker.userId, speaker.type)),
    survey_id: null,
    hashtags: '',
    max_attendees: event.maxAttendees,
  };
}

/** A speaker link as shown inside an event (§2.4): the type capitalised. */
export function speakerLinkJson(eventId: number, userId: number, type: string): Record<string, unknown> {
  return {
    id: `${eventId}.${userId}`,
    event_id: eventId,
    user_id: userId,
    speaker_type: type.charAt(0).toUpperCase() + type.slice(1),
  };
}

/** A schedule entry of §2.6. */
export function scheduleEntryJson(event: EventRecord): { id: number; client_ids: string[] } {
  return { id: event.id, client_ids: [...event.clientIds] };
}
