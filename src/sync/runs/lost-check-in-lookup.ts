import type { PlannedIntent } from '../../model/planned-intent.js';
import type { CheckIn } from '../../platform/response-schemas.js';
import { isKeyOwners } from '../plan/key-owners-check-in.js';
import type { SyncPlatform } from '../processors/sync-platform.js';

/** A check-in whose POST may have been recorded: when it was sent, and when it was given up. */
export interface LostCheckIn {
  item: PlannedIntent;
  /** When its POST started (its send mark), or when its run started. */
  sentFrom: Date;
  /** When its failure was recorded (the POST had ended by then). */
  sentBy: Date;
}

/** What the platform says about lost check-ins, as far as §4.1 lets it be read. */
export interface LostCheckInLookup {
  /** Found on the platform: its platform id. Not to be posted again. */
  found: Map<PlannedIntent, number>;
  /** Not on the platform, which lists every check-in it could be: safe to post. */
  absent: PlannedIntent[];
  /**
   * Nothing can tell: a check-in in another user's name (§4.1 lists only the key owner's
   * own, `GET /check_in/my`), or one whose listing could not be read or matched for sure.
   */
  unknowable: PlannedIntent[];
}

/**
 * The platform's clock and ours may differ; a check-in created this much outside the time
 * its POST was on its way still counts as that POST's.
 */
export const CLOCK_SKEW_MS = 2 * 60_000;

/**
 * Looks the lost check-ins up where §4.1 allows it. A check-in posted without `id` or
 * `client_id` is the key owner's, and `GET /check_in/my` lists every one of those, newest
 * first: one of the same mode, text and place created while its POST was on its way is
 * that POST's (each listed check-in answers for one lost POST at most, and never for one
 * the ledger already knows, `known`). A check-in in another user's name cannot be listed
 * by anyone but that user: it stays unknowable.
 */
export async function lookUpLostCheckIns(
  platform: Pick<SyncPlatform, 'checkIns'>,
  lost: readonly LostCheckIn[],
  known: ReadonlySet<number> = new Set(),
): Promise<LostCheckInLookup> {
  const lookup: LostCheckInLookup = { found: new Map(), absent: [], unknowable: [] };
  const listable = lost.filter((entry) => isKeyOwners(entry.item) && platform.checkIns.my !== undefined);
  for (const entry of lost) if (!listable.includes(entry)) lookup.unknowable.push(entry.item);
  if (listable.length === 0) return lookup;
  const unsure = new Set<PlannedIntent>();
  const oldest = Math.min(...listable.map((entry) => entry.sentFrom.getTime())) - CLOCK_SKEW_MS;
  try {
    for await (const checkIn of platform.checkIns.my!({ limit: 100 })) {
      const created = createdAtMs(checkIn);
      if (created !== undefined && created < oldest) break;
      if (known.has(checkIn.id)) continue;
      for (const entry of listable) {
        if (lookup.found.has(entry.item) || unsure.has(entry.item)) continue;
        const match = matches(entry, checkIn, created);
        if (match === 'no') continue;
        if (match === 'yes') lookup.found.set(entry.item, checkIn.id);
        else unsure.add(entry.item);
        break;
      }
    }
  } catch {
    // The listing could not be read to its end: what was not found yet cannot be told.
    for (const entry of listable) if (!lookup.found.has(entry.item)) unsure.add(entry.item);
  }
  for (const entry of listable) {
    if (lookup.found.has(entry.item)) continue;
    (unsure.has(entry.item) ? lookup.unknowable : lookup.absent).push(entry.item);
  }
  return lookup;
}

/**
 * `yes` when the listed check-in has the lost one's mode, text and place and was created
 * while its POST was on its way; `unsure` when its place or time cannot be read to tell.
 */
function matches(entry: LostCheckIn, checkIn: CheckIn, created: number | undefined): 'yes' | 'no' | 'unsure' {
  const { params } = entry.item;
  const mode = String(checkIn.mode ?? '');
  if (mode !== '' && (params['check_in[mode]'] === '2') === (mode === 'check_in' || mode === '1'))
    return 'no';
  if ((checkIn.display_value ?? '').trim() !== (params['check_in[display_value]'] ?? '').trim()) return 'no';
  if (created === undefined) return 'unsure';
  if (created < entry.sentFrom.getTime() - CLOCK_SKEW_MS || created > entry.sentBy.getTime() + CLOCK_SKEW_MS)
    return 'no';
  return samePlace(params, checkIn.location);
}

function samePlace(params: PlannedIntent['params'], location: CheckIn['location']): 'yes' | 'no' | 'unsure' {
  const itemId = params['check_in[location_item][id]'];
  const center = params['check_in[center]'];
  if (itemId) {
    if (typeof location?.id !== 'number') return 'unsure';
    return location.id === Number(itemId) ? 'yes' : 'no';
  }
  if (center) {
    const [lng, lat] = center.split(',').map((part) => Number(part.trim()));
    const latlng = location?.latlng as { lat?: unknown; lng?: unknown } | null | undefined;
    if (typeof latlng?.lat !== 'number' || typeof latlng.lng !== 'number') return 'unsure';
    return Math.abs(latlng.lat - (lat ?? NaN)) < 1e-6 && Math.abs(latlng.lng - (lng ?? NaN)) < 1e-6
      ? 'yes'
      : 'no';
  }
  // At the conference (chatter without a place): mode, text and time decide.
  return 'yes';
}

/** §2.1: `{json_class: 'Time', s, n}` in JSON; an ISO text tolerated. */
function createdAtMs(checkIn: CheckIn): number | undefined {
  const at = checkIn.created_at;
  if (at === null || at === undefined) return undefined;
  if (typeof at === 'string') {
    const parsed = Date.parse(at);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  return at.s * 1000;
}
