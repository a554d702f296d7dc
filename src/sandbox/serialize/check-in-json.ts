import { rubyTime } from '../clock.js';
import type { SandboxState } from '../sandbox-state.js';
import type { CheckInRecord, FeatureRecord, UserRecord } from '../state-types.js';
import { addressJson, displayName } from './user-json.js';

/** The check-in of spec §2.2: time objects and `type` members throughout. */
export function checkInJson(state: SandboxState, checkIn: CheckInRecord): Record<string, unknown> {
  const user = state.users.get(checkIn.userId);
  return {
    id: checkIn.id,
    display_value: checkIn.displayValue,
    created_at: rubyTime(checkIn.createdAt),
    user: user ? userSummaryJson(user) : null,
    location: locationJson(state, checkIn),
    mode: checkIn.mode === 1 ? 'check_in' : 'chatter',
    type: 'check_in',
  };
}

export function userSummaryJson(user: UserRecord): Record<string, unknown> {
  return {
    id: user.id,
    first_name: user.firstName,
    last_name: user.lastName,
    display_name: displayName(user),
    account: accountJson(user),
    item: {
      id: user.itemId,
      display_value: displayName(user),
      created_on: rubyTime(user.createdOn),
      updated_on: rubyTime(user.updatedOn),
      tags: [...user.tags],
      icon: user.iconId === null ? null : iconJson(user.iconId, user.iconUri ?? ''),
      rating: null,
      article:
        user.bio === null
          ? null
          : { id: user.itemId + 1, item_id: user.itemId, content: user.bio, type: 'article' },
      phones: user.phones.map((phone) => ({ ...phone, type: 'phone' })),
      type: 'item',
    },
    employee: { position: user.position, company_name: user.companyName, type: 'employee' },
    type: 'user',
  };
}

function accountJson(user: UserRecord): Record<string, unknown> {
  return {
    id: user.accountId,
    account_name: user.accountName,
    web_links: { ...user.webLinks },
    addresses: user.addresses.map(addressJson),
    type: 'account',
  };
}

function iconJson(id: number, uri: string): Record<string, unknown> {
  const extension = /\.(gif|jpe?g|png)$/i.exec(uri)?.[1]?.toLowerCase() ?? 'png';
  const file = `icon-${id}.${extension}`;
  const sizes = [
    'small-32',
    'small_hover-32',
    'medium-64',
    'large-100',
    'extra_large-150',
    'logo-200',
    'photo-640',
  ];
  return {
    id,
    content_type: `image/${extension === 'jpg' ? 'jpeg' : extension}`,
    versions: Object.fromEntries(sizes.map((size) => [size, `${size}-${file}`])),
    type: 'icon',
  };
}

/** The location object: the place, wrapped as a feature whose item is the place itself. */
function locationJson(state: SandboxState, checkIn: CheckInRecord): Record<string, unknown> {
  const place = checkIn.place;
  const admin = state.users.get(state.adminUserId);
  let id: number;
  let name: string;
  let latlng: { lat: number; lng: number } | null = null;
  if (place.kind === 'center') {
    id = place.featureId;
    name = checkIn.displayValue ?? `${place.lat},${place.lng}`;
    latlng = { lat: place.lat, lng: place.lng };
  } else if (place.kind === 'conference') {
    id = state.conferenceFeatureId;
    name = state.conferenceName;
  } else {
    id = place.id;
    name = placeName(state, place.kind, place.id);
    const feature: FeatureRecord | undefined =
      place.kind === 'feature' ? state.features.get(place.id) : undefined;
    if (feature?.lat != null && feature.lng != null) latlng = { lat: feature.lat, lng: feature.lng };
  }
  return {
    id,
    name,
    item: {
      id,
      display_value: name,
      tags: [],
      rating: null,
      article: null,
      phones: [],
      icon: null,
      type: 'item',
    },
    names: [name],
    geometries: latlng ? [{ id, geom: pointWkbHex(latlng.lng, latlng.lat), type: 'geometry' }] : [],
    tags: [],
    creator: admin ? accountJson(admin) : null,
    permissions: { insertable: false, updatable: false, deletable: false },
    latlng,
    type: 'feature',
  };
}

function placeName(state: SandboxState, kind: string, id: number): string {
  if (kind === 'user') {
    const user = state.users.get(id);
    return user ? displayName(user) : '';
  }
  if (kind === 'event') return state.events.get(id)?.name ?? '';
  if (kind === 'exhibitor') return state.exhibitors.get(id)?.name ?? '';
  return state.features.get(id)?.name ?? '';
}

/** Little-endian WKB of a point, as hexadecimal text (the `geom` of §2.2). */
function pointWkbHex(x: number, y: number): string {
  const buffer = Buffer.alloc(21);
  buffer.writeUInt8(1, 0);
  buffer.writeUInt32LE(1, 1);
  buffer.writeDoubleLE(x, 5);
  buffer.writeDoubleLE(y, 13);
  return buffer.toString('hex').toUpperCase();
}
