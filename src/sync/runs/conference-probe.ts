import type { Ledger } from '../../ledger/ledger.js';
import type { ConferenceRecord } from '../../model/conference.js';
import type { IntentKind } from '../../model/intent.js';
import type { PlatformClient } from '../../platform/platform-client.js';

/** Objects of a known conference read at the new URL and at the known one: enough to tell, few calls. */
const PROBES = 3;
/** Known conferences asked about, most recently used first. */
const CANDIDATES = 5;

/** What the probe needs of a client: reads by platform id, and the same key at another URL. */
export type ProbeClient = Pick<PlatformClient, 'baseUrl' | 'keyId' | 'users' | 'events' | 'atBaseUrl'>;

/** A known conference a new base URL answers as, and the objects that showed it. */
export interface SameConference {
  conference: ConferenceRecord;
  evidence: Array<{ kind: IntentKind; clientId: string; id: number }>;
}

/**
 * Whether `client`'s base URL, which the ledger does not know, is a conference it knows by
 * another name (docs/ledger.md, "A conference by another name"): `127.0.0.1` and
 * `localhost`, www and bare, a CNAME. For each known conference with the same key id, a few
 * events (users when it has none) the ledger holds by platform id are read at both URLs:
 * the same objects — the ledger's client_id among theirs, the same `updated_on` — are the
 * same conference. Events are per conference; a user may be in several (203), so users are
 * only asked when no event is known. A known URL that no longer answers proves nothing.
 */
export async function sameConferenceAs(
  ledger: Ledger,
  client: ProbeClient,
  url: string,
): Promise<SameConference | undefined> {
  const candidates = (await ledger.listConferences())
    .filter((known) => known.baseUrl !== url && (known.keyId === null || known.keyId === client.keyId))
    .slice(0, CANDIDATES);
  for (const conference of candidates) {
    const evidence = await sampleOf(ledger.forConference(conference));
    if (evidence.length === 0) continue;
    const there = client.atBaseUrl(conference.baseUrl);
    try {
      if (await allSame(client, there, evidence)) return { conference, evidence };
    } finally {
      await there.close();
    }
  }
  return undefined;
}

async function sampleOf(ledger: Ledger): Promise<SameConference['evidence']> {
  for (const kind of ['event', 'user'] as const) {
    for await (const page of ledger.idPages(kind)) {
      const sample = page.slice(0, PROBES).map(([clientId, id]) => ({ kind, clientId, id }));
      if (sample.length > 0) return sample;
      break;
    }
  }
  return [];
}

async function allSame(
  here: ProbeClient,
  there: ProbeClient,
  evidence: SameConference['evidence'],
): Promise<boolean> {
  for (const { kind, clientId, id } of evidence) {
    const [atHere, atThere] = await Promise.all([read(here, kind, id), read(there, kind, id)]);
    if (atHere === undefined || atThere === undefined) return false;
    if (!(atHere.client_ids ?? []).includes(clientId)) return false;
    if (atHere.updated_on !== atThere.updated_on || atHere.updated_on == null) return false;
  }
  return true;
}

async function read(
  client: ProbeClient,
  kind: IntentKind,
  id: number,
): Promise<{ client_ids?: string[] | undefined; updated_on?: string | null | undefined } | undefined> {
  try {
    return kind === 'event' ? await client.events.get(id) : await client.users.get(id);
  } catch {
    // Not found, refused, unreachable: no proof either way.
    return undefined;
  }
}
