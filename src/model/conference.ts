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

/**
 * The host of the conference a run wrote to, or null for a run recorded before runs named
 * theirs (ledger migration 8): what `evsync runs`, `evsync status` and the dashboard show.
 */
export function runConferenceHost(run: { conference: { baseUrl: string } | null }): string | null {
  return run.conference === null ? null : conferenceHost(run.conference.baseUrl);
}
