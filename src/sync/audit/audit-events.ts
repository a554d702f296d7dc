import type { PlatformEvent } from '../../platform/response-schemas.js';
import { readBack } from './audit-read-error.js';
import type { AuditLedger, AuditPlatform, DriftSink, KindAudit } from './drift.js';
import {
  AUDIT_PAGE_LIMIT,
  compareFields,
  emptyKindAudit,
  reportUnmatched,
  syncedAmong,
  unlessGone,
} from './drift.js';
import type { SourceIndex, SourceLink } from './source-index.js';
import type { SeenUserIds } from './audit-users.js';

/** A link the platform does not show, kept until the ledger says whether a run synced it. */
interface AbsentLink {
  link: SourceLink;
  eventKey: string;
  eventId: number | null;
}

/**
 * `GET /event` page by page (§4.5, `event_page`, `limit` 100): each event is matched by its
 * `client_ids`, else by the id map, and compared; its `speakers` (§2.4) answer for the
 * source's speaker links of that event. Source events no page showed are missing, and so
 * are their synced links.
 */
export async function auditEvents(
  deps: { ledger: AuditLedger; platform: AuditPlatform; sink: DriftSink },
  index: SourceIndex,
  users: SeenUserIds,
  ahead = 1,
): Promise<{ events: KindAudit; speakers: KindAudit }> {
  const events = emptyKindAudit();
  const speakers = emptyKindAudit();
  const ids = await deps.ledger.loadIdMap('event');
  const userIds = index.linkCount > 0 ? await deps.ledger.loadIdMap('user') : new Map<string, number>();
  const knownIds = new Set(ids.values());
  const keyById = new Map<number, string>();
  for (const key of index.events.keys()) {
    const id = ids.get(key);
    if (id !== undefined) keyById.set(id, key);
  }
  const matched = new Set<string>();
  const absent: AbsentLink[] = [];
  /** The event of `key` as the platform shows it: its fields and its speakers compared. */
  const compare = (key: string, event: PlatformEvent): void => {
    matched.add(key);
    const object = index.events.get(key);
    if (object) compareFields(deps.sink, 'event', key, object.fields, event, events);
    for (const link of index.linksByEvent.get(key) ?? []) {
      checkLink(
        link,
        event,
        (id) => users.get(id) ?? userIds.get(id),
        speakers,
        deps.sink,
        (gone) => absent.push({ link: gone, eventKey: key, eventId: event.id }),
      );
    }
  };
  for await (const event of readBack(
    'the events (GET /event)',
    deps.platform.events.list({ limit: AUDIT_PAGE_LIMIT, ahead }),
  )) {
    const clientIds = event.client_ids ?? [];
    const key =
      clientIds.find((id) => index.events.has(id) || index.linksByEvent.has(id)) ?? keyById.get(event.id);
    if (key === undefined) {
      if (knownIds.has(event.id) || clientIds.some((id) => ids.has(id))) continue;
      // A job of speaker links alone does not own events: none of them is its extra.
      if (index.events.size === 0) continue;
      events.extra += 1;
      deps.sink({
        kind: 'event',
        key: clientIds[0] ?? `#${event.id}`,
        type: 'extra',
        fields: [],
        platform_id: event.id,
        detail: `"${event.name ?? ''}" (#${event.id}) is on the platform with no key of this job`,
      });
      continue;
    }
    if (matched.has(key)) continue;
    compare(key, event);
  }
  const unmatched = [...index.events.keys()].filter((key) => !matched.has(key));
  await reportUnmatched(
    deps,
    'event',
    unmatched,
    events,
    ids,
    'synced, but no longer on the platform',
    (id) => unlessGone(() => deps.platform.events.get(id)),
    (key, event) => compare(key, event),
  );
  // Links of events neither a page nor a read by id showed: absent with their event.
  for (const [eventKey, links] of index.linksByEvent) {
    if (matched.has(eventKey)) continue;
    for (const link of links) absent.push({ link, eventKey, eventId: null });
  }
  const linksSynced = await syncedAmong(
    deps.ledger,
    'speaker',
    absent.map((entry) => entry.link.key),
  );
  for (const { link, eventKey, eventId } of absent) {
    if (!linksSynced.has(link.key)) {
      speakers.not_synced += 1;
      continue;
    }
    speakers.missing += 1;
    deps.sink({
      kind: 'speaker',
      key: link.key,
      type: 'missing',
      fields: [],
      platform_id: eventId,
      detail: `${link.userClientId ?? `user #${link.userId}`} is not a speaker of ${eventKey}${eventId === null ? ' (the event is missing)' : ''}`,
    });
  }
  return { events, speakers };
}

/** One source link against the event's `speakers`: in sync, changed (its type), or absent. */
function checkLink(
  link: SourceLink,
  event: PlatformEvent,
  userIdOf: (clientId: string) => number | undefined,
  audit: KindAudit,
  sink: DriftSink,
  onAbsent: (link: SourceLink) => void,
): void {
  // An answer without `speakers` does not show links: nothing to compare.
  if (event.speakers === undefined) return;
  const userId = link.userId ?? (link.userClientId === undefined ? undefined : userIdOf(link.userClientId));
  const shown =
    userId === undefined ? undefined : event.speakers.find((speaker) => speaker.user_id === userId);
  if (shown === undefined) return onAbsent(link);
  const type = (shown.speaker_type ?? '').toLowerCase();
  if (shown.speaker_type === undefined || type === link.type) {
    audit.in_sync += 1;
    return;
  }
  audit.changed += 1;
  sink({
    kind: 'speaker',
    key: link.key,
    type: 'changed',
    fields: ['speaker[type_name]'],
    platform_id: event.id,
    detail: `speaker[type_name]: platform "${type}", source "${link.type}"`,
  });
}
