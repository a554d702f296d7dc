import type { IntentKind, ParentKind } from '../../model/intent.js';
import { clientIdOfPart, splitLinkKey } from '../../model/link-key.js';

/**
 * Kinds mirror mode may delete that join platform records rather than being one: a speaker
 * link (event, user), an RSVP (user, event), a contact (user, user or exhibitor) and a
 * schedule (its user: a schedule's "delete" clears that user's schedule).
 */
export const LINK_KINDS = ['speaker', 'schedule', 'rsvp', 'contact'] as const satisfies readonly IntentKind[];
export type LinkKind = (typeof LINK_KINDS)[number];

export function isLinkKind(kind: string): kind is LinkKind {
  return (LINK_KINDS as readonly string[]).includes(kind);
}

/** A user's or event's platform id by client id: the id map as it stands. */
export type IdOf = (kind: ParentKind, clientId: string) => number | undefined;

/** A key still in the source that names the same platform records as a gone one. */
export interface SharedLink {
  key: string;
  /** What the two keys name on the platform, for the result's message: `event 5, user 7`. */
  records: string;
}

/**
 * What a link or schedule key names on the platform, written so that two keys naming the
 * same records give the same text: `event 5, user 7`. A part is resolved through the id map,
 * or is a platform id already (`#7`); an RSVP's user by e-mail is that e-mail, without case.
 * `undefined` when a part has no platform id (yet): such a key is compared with nothing.
 */
export function platformRecords(kind: LinkKind, key: string, idOf: IdOf): string | undefined {
  const [first, second] = splitLinkKey(key);
  switch (kind) {
    case 'speaker':
      return both(recordOf('event', first, idOf), recordOf('user', second, idOf));
    case 'rsvp':
      return both(recordOf('user', first, idOf), recordOf('event', second, idOf));
    case 'schedule':
      return recordOf('user', key, idOf);
    case 'contact':
      return both(recordOf('user', first, idOf), contactTarget(second, idOf));
  }
}

function both(first: string | undefined, second: string | undefined): string | undefined {
  return first === undefined || second === undefined ? undefined : `${first}, ${second}`;
}

function recordOf(kind: ParentKind, part: string, idOf: IdOf): string | undefined {
  if (/^#\d+$/.test(part)) return `${kind} ${part.slice(1)}`;
  if (kind === 'user' && part.startsWith('email:'))
    return `user e-mail ${clientIdOfPart(part.slice('email:'.length)).toLowerCase()}`;
  const id = idOf(kind, clientIdOfPart(part));
  return id === undefined ? undefined : `${kind} ${id}`;
}

/** A contact's `user:<id>` or `exhibitor:<id>`, read as the contact processor reads it. */
function contactTarget(target: string, idOf: IdOf): string | undefined {
  const colon = target.indexOf(':');
  const type = target.slice(0, colon);
  const id = target.slice(colon + 1);
  if (type === 'exhibitor') return `exhibitor ${id}`;
  if (type !== 'user') return undefined;
  const userId = /^\d+$/.test(id) ? Number(id) : idOf('user', id);
  return userId === undefined ? undefined : `user ${userId}`;
}

/**
 * The keys still in the source by the platform records they name, per kind, indexed on the
 * first question: ask once the users and events of the run have their ids (a plan's end,
 * or the run's mirror deletes of links, which come after every user and event is sent).
 */
export class SharedLinks {
  private readonly index = new Map<LinkKind, Map<string, string>>();

  constructor(
    /** Keys of the kind the source still has (seen in this run, or kept by a failed row). */
    private readonly liveKeys: (kind: LinkKind) => Iterable<string>,
    private readonly idOf: IdOf,
  ) {}

  /** Another key still in the source that names the same platform records as `key`, if any. */
  sharedWith(kind: LinkKind, key: string): SharedLink | undefined {
    const records = platformRecords(kind, key, this.idOf);
    if (records === undefined) return undefined;
    const other = this.indexOf(kind).get(records);
    return other === undefined || other === key ? undefined : { key: other, records };
  }

  private indexOf(kind: LinkKind): Map<string, string> {
    let index = this.index.get(kind);
    if (!index) {
      this.index.set(kind, (index = new Map<string, string>()));
      for (const key of this.liveKeys(kind)) {
        const records = platformRecords(kind, key, this.idOf);
        if (records !== undefined && !index.has(records)) index.set(records, key);
      }
    }
    return index;
  }
}
