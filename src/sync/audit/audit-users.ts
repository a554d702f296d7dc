import type { Erasures } from '../collect/erasures.js';
import type { PlatformUser } from '../../platform/response-schemas.js';
import { readBack } from './audit-read-error.js';
import type { AuditLedger, AuditPlatform, DriftSink, KindAudit } from './drift.js';
import { AUDIT_PAGE_LIMIT, compareFields, emptyKindAudit, reportUnmatched, unlessGone } from './drift.js';
import type { SourceIndex, SourceObject } from './source-index.js';
import { emailParam } from '../../platform/vendor.js';
import type { FlatParams } from '../../model/params.js';
import { anotherPerson, fullName, namesAgree } from '../../model/person.js';

/** What the users pass leaves for the links: the platform id of each source user's client_ids. */
export type SeenUserIds = Map<string, number>;

/**
 * `GET /user` page by page (§4.2, `user_page`, `limit` 100): each platform user is matched
 * to a source user by its `client_ids`, else by the id map, and compared field by field
 * while its page is in hand. Source users no page showed are missing, if a run synced them.
 * `ahead`: pages asked for at once (`ListOptions.ahead`), the job's concurrency.
 */
export async function auditUsers(
  deps: { ledger: AuditLedger; platform: AuditPlatform; sink: DriftSink; erasures?: Erasures },
  index: SourceIndex,
  ahead = 1,
): Promise<{ audit: KindAudit; seen: SeenUserIds }> {
  const audit = emptyKindAudit();
  const ids = await deps.ledger.loadIdMap('user');
  const knownIds = new Set(ids.values());
  const keyById = new Map<number, string>();
  for (const object of index.users.values()) {
    for (const ref of [object.key, ...object.aliases]) {
      const id = ids.get(ref);
      if (id !== undefined && !keyById.has(id)) keyById.set(id, object.key);
    }
  }
  const matched = new Set<string>();
  const seen: SeenUserIds = new Map();
  /** The user of `key` as the platform shows it: another person, or compared field by field. */
  const compare = async (key: string, user: PlatformUser): Promise<void> => {
    matched.add(key);
    const object = index.users.get(key)!;
    for (const ref of [object.key, ...object.aliases]) seen.set(ref, user.id);
    const other = await anotherPersonUnder(
      { ledger: deps.ledger, vendor: deps.platform.vendor },
      object,
      user,
    );
    if (other === undefined) return compareFields(deps.sink, 'user', key, object.fields, user, audit);
    audit.another_person += 1;
    deps.sink({
      kind: 'user',
      key,
      type: 'another_person',
      fields: [],
      platform_id: user.id,
      detail: other,
    });
  };
  for await (const user of readBack(
    'the users (GET /user)',
    deps.platform.users.list({ limit: AUDIT_PAGE_LIMIT, ahead }),
  )) {
    const clientIds = user.client_ids ?? [];
    const key =
      clientIds.map((id) => index.userKeyOf(id)).find((k) => k !== undefined) ?? keyById.get(user.id);
    if (key === undefined && deps.erasures?.namesClientIds(clientIds)) {
      // Keyed by platform id: the drift report names nobody erased.
      audit.erased += 1;
      deps.sink({
        kind: 'user',
        key: `#${user.id}`,
        type: 'erased',
        fields: [],
        platform_id: user.id,
        detail:
          'a person erased with evsync forget is in this conference again (re-added by hand?): remove them on the platform; --repair never sends them',
      });
      continue;
    }
    if (key === undefined) {
      // Synced by evsync for another job of this conference: theirs to audit, not extra.
      if (knownIds.has(user.id) || clientIds.some((id) => ids.has(id))) continue;
      audit.extra += 1;
      deps.sink({
        kind: 'user',
        key: clientIds[0] ?? `#${user.id}`,
        type: 'extra',
        fields: [],
        platform_id: user.id,
        detail: `${nameOf(user)} is in this conference with no key of this job`,
      });
      continue;
    }
    // A second platform user answering to one key is not compared twice.
    if (matched.has(key)) continue;
    await compare(key, user);
  }
  const unmatched = [...index.users.keys()].filter((key) => !matched.has(key));
  await reportUnmatched(
    deps,
    'user',
    unmatched,
    audit,
    ids,
    'synced, but not in this conference any more',
    (id) => unlessGone(() => deps.platform.users.get(id)),
    (key, user) => compare(key, user),
  );
  return { audit, seen };
}

/**
 * What says that the source's row of `object` now names another person than the platform's
 * account under its key, or undefined when it may be the same person. The rule of a run
 * (`anotherPerson`, as `refuseKeyOfAnother` applies it), against the platform's name and the
 * name last synced, with the e-mail last synced under the key (§2.3 shows no e-mail): a run
 * refuses such a row, and a row whose name agrees with either is drift. A ledger read only for a user whose
 * name disagrees with the platform's: a hand edit of the name (a typo fixed) under the same
 * e-mail stays `changed`, and is repaired.
 */
async function anotherPersonUnder(
  { ledger, vendor }: { ledger: AuditLedger; vendor: string },
  object: SourceObject,
  user: PlatformUser,
): Promise<string | undefined> {
  const fields = new Map(object.fields.map((field) => [field.param, field.value]));
  const now = { name: fullName(fields.get(FIRST), fields.get(LAST)), email: object.email ?? '' };
  const platformName = fullName(user.first_name, user.last_name);
  if (now.email === '' || namesAgree(platformName, now.name)) return undefined;
  const refs = [object.key, ...object.aliases];
  const synced = await ledger.syncedParams('user', refs);
  // A key a mirror delete removed keeps its person on the platform (the client_id stays on
  // the account), and a create re-attached them: the person last sent is the one to compare.
  const unsynced = refs.filter((ref) => !synced.has(ref));
  const removed =
    unsynced.length === 0
      ? new Map<string, FlatParams>()
      : await ledger.removedKeysLastSent('user', unsynced);
  for (const ref of refs) {
    const last = synced.get(ref) ?? removed.get(ref);
    if (last === undefined) continue;
    const lastEmail = last[emailParam(vendor)]?.trim() ?? '';
    const lastName = fullName(last[FIRST], last[LAST]);
    // Both names: one the organiser fixed by hand on the platform, and one the run compares with.
    if (!anotherPerson({ name: platformName, email: lastEmail }, now)) continue;
    if (!anotherPerson({ name: lastName, email: lastEmail }, now)) continue;
    const through = ref === object.key ? '' : ` (through its client_id "${ref}")`;
    const refusal = synced.has(ref)
      ? 'a run refuses the row (EVSYNC_KEY_NOW_ANOTHER_PERSON)'
      : 'a run removed that person from this conference since, and the platform keeps the client_id on their account (a create put them back); a run refuses the row (EVSYNC_KEY_OF_REMOVED_PERSON)';
    return (
      `the platform's account${through} is "${platformName}" <${lastEmail}> (the e-mail last synced), and the source now makes it "${now.name}" <${now.email}>: ` +
      `another person under the same key (a ticket handed on?), not a hand edit. Not repaired: ${refusal}. ` +
      'Give the new person a client_id of their own; if it is one person with a new name and a new e-mail, change one in this run and the other in the next'
    );
  }
  return undefined;
}

const FIRST = 'user[first_name]';
const LAST = 'user[last_name]';

function nameOf(user: PlatformUser): string {
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ');
  return name === '' ? `user #${user.id}` : `${name} (#${user.id})`;
}
