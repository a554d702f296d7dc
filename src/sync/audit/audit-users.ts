import type { Erasures } from '../collect/erasures.js';
import type { PlatformUser } from '../../platform/response-schemas.js';
import { readBack } from './audit-read-error.js';
import type { AuditLedger, AuditPlatform, DriftSink, KindAudit } from './drift.js';
import { AUDIT_PAGE_LIMIT, compareFields, emptyKindAudit, reportUnmatched, unlessGone } from './drift.js';
import type { SourceIndex } from './source-index.js';

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
  /** The user of `key` as the platform shows it, compared field by field. */
  const compare = (key: string, user: PlatformUser): void => {
    matched.add(key);
    const object = index.users.get(key)!;
    for (const ref of [object.key, ...object.aliases]) seen.set(ref, user.id);
    compareFields(deps.sink, 'user', key, object.fields, user, audit);
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
    compare(key, user);
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

function nameOf(user: PlatformUser): string {
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ');
  return name === '' ? `user #${user.id}` : `${name} (#${user.id})`;
}
