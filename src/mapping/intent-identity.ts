import type { FlatParams } from '../model/params.js';
import type { IntentDependency, IntentKind } from '../model/intent.js';
import { keyPart, linkKey, userKeyPart } from '../model/link-key.js';
import type { WriteOperation } from '../platform/write-params/validate-write-params.js';

/** Kinds a source may also remove; the others are only upserted (deletes come from mirror mode). */
export const REMOVABLE_KINDS: ReadonlySet<IntentKind> = new Set(['speaker', 'rsvp', 'contact']);

/**
 * Users and events are validated as creates: an upsert carries the whole object, and the
 * plan decides later whether it is sent as a create or an update.
 */
export function writeOperation(kind: IntentKind, op: 'upsert' | 'remove'): WriteOperation {
  switch (kind) {
    case 'user':
      return 'user.create';
    case 'event':
      return 'event.create';
    case 'schedule':
      return 'schedule.replace';
    case 'check_in':
      return 'check_in.create';
    case 'speaker':
      return op === 'remove' ? 'speaker.remove' : 'speaker.add';
    case 'rsvp':
      return op === 'remove' ? 'rsvp.remove' : 'rsvp.add';
    case 'contact':
      return op === 'remove' ? 'contact.remove' : 'contact.add';
  }
}

/** The params that make up the key of each kind, for "X is required to key this intent". */
export const KEY_PARAMS: Record<IntentKind, readonly string[]> = {
  user: ['client_id'],
  event: ['client_id'],
  speaker: ['client_id', 'speaker[user_client_id]|speaker[user_id]'],
  schedule: ['user[client_id]|user[id]'],
  rsvp: ['user[client_id]|user[id]|user[email]', 'client_id'],
  contact: ['client_id', 'user_id|exhibitor_id'],
  check_in: [],
};

function present(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The ledger key of an intent (see intent.ts), or `undefined` when a param it needs is
 * missing. The client ids of links and schedules are written as key parts (link-key.ts), so
 * a `/` or a leading `#` inside a client id cannot be read as another pair or a platform id.
 */
export function intentKey(kind: IntentKind, params: FlatParams): string | undefined {
  switch (kind) {
    case 'user':
    case 'event':
      return present(params.client_id);
    case 'speaker': {
      const event = present(params.client_id);
      const user = userKeyPart({
        clientId: params['speaker[user_client_id]'],
        id: params['speaker[user_id]'],
      });
      return event && user ? linkKey(keyPart(event), user) : undefined;
    }
    case 'schedule':
      return userKeyPart({ clientId: params['user[client_id]'], id: params['user[id]'] });
    case 'rsvp': {
      const user = userKeyPart({
        clientId: params['user[client_id]'],
        id: params['user[id]'],
        email: params['user[email]'],
      });
      const event = present(params.client_id);
      return user && event ? linkKey(user, keyPart(event)) : undefined;
    }
    case 'contact': {
      const owner = present(params.client_id);
      const target = prefixed('user:', params.user_id) ?? prefixed('exhibitor:', params.exhibitor_id);
      return owner && target ? linkKey(keyPart(owner), target) : undefined;
    }
    case 'check_in':
      return undefined;
  }
}

function prefixed(prefix: string, value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : `${prefix}${value}`;
}

/** The users and events an intent needs first, by client_id (platform ids need no wait). */
export function intentDependencies(kind: IntentKind, params: FlatParams): IntentDependency[] {
  if (kind === 'user') return [];
  const deps: IntentDependency[] = [];
  switch (kind) {
    case 'event':
      for (const [name, value] of Object.entries(params)) {
        if (/^event\[speakers_attributes\]\[\d+\]\[user_client_id\]$/.test(name)) depend(deps, 'user', value);
      }
      break;
    case 'speaker':
      depend(deps, 'user', params['speaker[user_client_id]']);
      depend(deps, 'event', params.client_id);
      break;
    case 'schedule':
      depend(deps, 'user', params['user[client_id]']);
      for (const [name, value] of Object.entries(params)) {
        if (name.startsWith('event_client_ids[')) depend(deps, 'event', value);
      }
      break;
    case 'rsvp':
      depend(deps, 'user', params['user[client_id]']);
      depend(deps, 'event', params.client_id);
      break;
    case 'contact':
      depend(deps, 'user', params.client_id);
      break;
    case 'check_in':
      // The check-in's location is a platform id: only the user is waited for.
      depend(deps, 'user', params.client_id);
      break;
  }
  return deps;
}

// A module function rather than closures per call: under tsx every named closure is also
// renamed with a defineProperty call each time it is created (about a microsecond).
function depend(
  deps: IntentDependency[],
  kind: IntentDependency['kind'],
  clientId: string | undefined,
): void {
  if (clientId) deps.push({ kind, clientId });
}
