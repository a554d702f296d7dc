import type { FlatParams } from '../model/params.js';
import { unflattenParams } from '../platform/params.js';
import { nowMicros, parseXmlDateTime } from './clock.js';
import { child, indexedChildren, splitList, text } from './nested-reader.js';
import { invalidParam } from './sandbox-http-error.js';
import type { SandboxState } from './sandbox-state.js';
import { addressOf } from './user-writes.js';
import type { EventRecord, FeatureRecord, SpeakerRecord } from './state-types.js';

const TRACK_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2'];

export function newEventRecord(state: SandboxState): EventRecord {
  return {
    id: state.nextId(),
    clientIds: [],
    name: '',
    content: '',
    start: 0,
    finish: 0,
    parentId: null,
    trackId: null,
    maxAttendees: null,
    tags: [],
    locationId: null,
    exhibitorId: null,
    speakers: [],
    itemId: state.nextId(),
    updatedOn: nowMicros(),
  };
}

/**
 * Sets every event field the params mention (§4.5 rule 2). Checks only what needs the
 * stored state — referenced tracks, exhibitors and speakers exist, and finish is not
 * before start once the stored value of the one not sent is taken into account — and
 * throws 422 naming the param. Nothing is changed unless every check passes.
 */
export function applyEventParams(state: SandboxState, event: EventRecord, params: FlatParams): void {
  const nested = unflattenParams(params);
  const input = child(nested, 'event') ?? {};
  const item = child(input, 'item_attributes');

  const startText = text(input, 'start');
  const finishText = text(input, 'finish');
  const start = startText === undefined ? event.start : dateTime('event[start]', startText);
  const finish = finishText === undefined ? event.finish : dateTime('event[finish]', finishText);
  if ((startText !== undefined || finishText !== undefined) && finish < start) {
    throw invalidParam('event[finish]', 'must not be before event[start]');
  }

  const trackId = text(input, 'track_id');
  if (trackId && !state.tracks.has(Number(trackId))) {
    throw invalidParam('event[track_id]', `does not name an existing track (${trackId})`);
  }
  const exhibitorClientId = text(input, 'exhibitor_client_id');
  const exhibitor = exhibitorClientId ? state.exhibitorByClientId(exhibitorClientId) : undefined;
  if (exhibitorClientId && !exhibitor) {
    throw invalidParam('event[exhibitor_client_id]', `names no exhibitor ("${exhibitorClientId}")`);
  }
  const speakers = speakersOf(state, child(input, 'speakers_attributes'));

  const name = text(item, 'display_value');
  if (name !== undefined) event.name = name;
  const content = text(child(item, 'article'), 'content');
  if (content !== undefined) event.content = content;
  const tags = text(item, 'tags_list');
  if (tags !== undefined) event.tags = splitList(tags);
  for (const tag of event.tags) state.tagId(tag);
  event.start = start;
  event.finish = finish;
  if (trackId !== undefined) event.trackId = trackId === '' ? null : Number(trackId);
  const trackName = text(input, 'track_name');
  if (trackName !== undefined) event.trackId = trackName === '' ? null : trackNamed(state, trackName);
  const maxAttendees = text(input, 'max_attendees');
  if (maxAttendees !== undefined) event.maxAttendees = maxAttendees === '' ? null : Number(maxAttendees);
  if (exhibitorClientId !== undefined) event.exhibitorId = exhibitor?.id ?? null;
  if (speakers) event.speakers = speakers;
  applyLocation(state, event, nested);
  event.updatedOn = nowMicros();
}

function dateTime(param: string, value: string): number {
  const micros = parseXmlDateTime(value);
  if (micros === undefined)
    throw invalidParam(param, 'must be an XML dateTime, e.g. 2026-06-01T09:00:00+02:00');
  return micros;
}

function speakersOf(state: SandboxState, input: ReturnType<typeof child>): SpeakerRecord[] | undefined {
  const entries = indexedChildren(input);
  if (entries.length === 0) return undefined;
  const speakers: SpeakerRecord[] = [];
  for (const [index, entry] of entries) {
    const param = `event[speakers_attributes][${index}][user_client_id]`;
    const clientId = text(entry, 'user_client_id') ?? '';
    const user = state.userByClientId(clientId);
    if (!user?.inConference) throw invalidParam(param, `names no user of this conference ("${clientId}")`);
    const type = text(entry, 'type_name') || 'speaker';
    if (!speakers.some((speaker) => speaker.userId === user.id)) speakers.push({ userId: user.id, type });
  }
  return speakers;
}

function trackNamed(state: SandboxState, name: string): number {
  for (const track of state.tracks.values()) if (track.name === name) return track.id;
  const position = state.tracks.size + 1;
  const id = state.nextId();
  const color = TRACK_COLORS[(position - 1) % TRACK_COLORS.length] ?? '#000000';
  state.tracks.set(id, { id, name, position, color });
  return id;
}

/** `location[...]` and `location_address[...]`: unchanged when none is passed. */
function applyLocation(
  state: SandboxState,
  event: EventRecord,
  nested: ReturnType<typeof unflattenParams>,
): void {
  const name = text(child(child(nested, 'location'), 'item_attributes'), 'display_value');
  const address = child(nested, 'location_address');
  if (name === undefined && !address) return;
  if (name === '') {
    event.locationId = null;
    return;
  }
  let feature: FeatureRecord | undefined =
    name === undefined && event.locationId !== null ? state.features.get(event.locationId) : undefined;
  for (const candidate of state.features.values())
    if (name !== undefined && candidate.name === name) feature = candidate;
  if (!feature) {
    if (name === undefined) return;
    feature = { id: state.nextId(), name, itemId: state.nextId(), lat: null, lng: null, address: null };
    state.features.set(feature.id, feature);
  }
  if (address) feature.address = addressOf(address);
  event.locationId = feature.id;
}
