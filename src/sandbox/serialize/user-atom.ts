import { isoSeconds } from '../clock.js';
import type { UserRecord } from '../state-types.js';
import { escapeXml } from './to-xml.js';
import { displayName } from './user-json.js';

const ATOM_NS = 'http://www.w3.org/2005/Atom';

/** The Atom `entry` of spec §2.3; `baseUrl` is where the request came in. */
export function userAtomEntry(
  user: UserRecord,
  baseUrl: string,
  vendor: string,
  withNamespace = true,
): string {
  const self = `${baseUrl}/user/member/${user.id}`;
  const name = escapeXml(displayName(user));
  const updated = isoSeconds(user.updatedOn).replace(/Z$/, '+00:00');
  return (
    `<entry${withNamespace ? ` xmlns="${ATOM_NS}"` : ''}>` +
    `<id>${escapeXml(self)}</id>` +
    `<link rel="self" type="application/atom+xml" href="${escapeXml(`${self}?format=atom`)}"/>` +
    `<link rel="alternate" type="text/html" href="${escapeXml(self)}"/>` +
    `<title>${name}</title>` +
    `<updated>${updated}</updated>` +
    `<content type="application/xml"><person xmlns="urn:${escapeXml(vendor)}:person">` +
    `<id>${user.id}</id><displayName>${name}</displayName></person></content>` +
    `</entry>`
  );
}

export function userAtomDocument(user: UserRecord, baseUrl: string, vendor: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${userAtomEntry(user, baseUrl, vendor)}\n`;
}

/** A list of users in Atom: a feed of entries. */
export function userAtomFeed(users: UserRecord[], baseUrl: string, vendor: string): string {
  const updated = users.reduce((latest, user) => Math.max(latest, user.updatedOn), 0);
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="${ATOM_NS}">` +
    `<id>${escapeXml(`${baseUrl}/user`)}</id><title>Users</title>` +
    `<updated>${isoSeconds(updated || Date.now() * 1000).replace(/Z$/, '+00:00')}</updated>` +
    `<link rel="self" type="application/atom+xml" href="${escapeXml(`${baseUrl}/user?format=atom`)}"/>` +
    users.map((user) => userAtomEntry(user, baseUrl, vendor, false)).join('') +
    `</feed>\n`
  );
}
