import type { PlannedIntent } from '../../model/planned-intent.js';

/**
 * A check-in posted in nobody else's name (no `id`, no `client_id`: §4.1) is the key
 * owner's, and `GET /check_in/my` lists every one of those: a lost answer of one can be
 * looked up. One in another user's name cannot: §4.1 lists only the caller's own.
 */
export function isKeyOwners(item: Pick<PlannedIntent, 'params'>): boolean {
  return !item.params.id && !item.params.client_id;
}
