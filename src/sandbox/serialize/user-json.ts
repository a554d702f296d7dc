import { isoMicros } from '../clock.js';
import type { SandboxState } from '../sandbox-state.js';
import type { AddressRecord, UserRecord } from '../state-types.js';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** The user object of spec §2.3 (no `type` members: those belong to check-in JSON). */
export function userJson(state: SandboxState, user: UserRecord): Record<string, unknown> {
  return {
    id: user.id,
    first_name: user.firstName,
    last_name: user.lastName,
    current_state: user.currentState,
    employee: { id: user.employeeId, position: user.position, organization: user.companyName },
    updated_on: isoMicros(user.updatedOn),
    profile: { custom_data: user.customData },
    tags: user.tags.map((name) => ({ id: state.tagId(name), tag_name: name })),
    content: user.bio,
    icon_id: user.iconId,
    client_ids: [...user.clientIds],
    phones: user.phones.map((phone) => ({ ...phone })),
    web_links: { ...user.webLinks },
    addresses: user.addresses.map(addressJson),
  };
}

export function addressJson(address: AddressRecord): Record<string, string | null> {
  return { ...address, country_name: countryName(address.country_code) };
}

function countryName(code: string | null): string | null {
  if (!code) return null;
  try {
    return regionNames.of(code) ?? null;
  } catch {
    return null;
  }
}

export function displayName(user: UserRecord): string {
  return [user.salutation, user.firstName, user.lastName].filter(Boolean).join(' ');
}
