/**
 * A conference on the platform, as the ledger knows it (docs/ledger.md, "Conferences"):
 * its identity is its normalised base URL; the key id last used with it is an attribute
 * (keys rotate). Every piece of sync state belongs to one.
 */
export interface ConferenceRecord {
  id: number;
  baseUrl: string;
  keyId: number | null;
}

/** What people are shown of a conference: its host (and path), never a key. */
export function conferenceHost(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl;
  }
}
