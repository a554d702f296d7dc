import type { FlatParams } from './params.js';
import type { RowOrigin } from './row-origin.js';

export const INTENT_KINDS = ['user', 'event', 'speaker', 'schedule', 'rsvp', 'contact', 'check_in'] as const;
export type IntentKind = (typeof INTENT_KINDS)[number];

/**
 * Kinds whose objects others depend on: they go first (docs/sync-engine.md "Phases") and
 * their platform ids are kept in the id map.
 */
export const PARENT_KINDS = ['user', 'event'] as const satisfies readonly IntentKind[];
export type ParentKind = (typeof PARENT_KINDS)[number];

export function isParentKind(kind: string): kind is ParentKind {
  return (PARENT_KINDS as readonly string[]).includes(kind);
}

export interface IntentDependency {
  kind: ParentKind;
  clientId: string;
}

/**
 * One write the source asks for, keyed by `(kind, key)` in the ledger. `params` are the
 * platform's write params exactly as the spec names them, already validated.
 *
 * Keys: user and event → their `client_id`; speaker → `<event>/<user>`; schedule → the
 * user; rsvp → `<user>/<event>`; contact → `<user>/<user|exhibitor>:<id>`; check_in → a key
 * the mapping derives. Inside link and schedule keys each client id is a key part
 * (link-key.ts: `%`, `/`, `#`, `:` percent-encoded), a user given by platform id `#123`.
 */
export interface Intent {
  kind: IntentKind;
  key: string;
  /** `remove` for RSVP, speaker and contact removals fed by a source; `upsert` otherwise. */
  op: 'upsert' | 'remove';
  params: FlatParams;
  origin: RowOrigin;
  dependsOn: IntentDependency[];
  /**
   * A user merged from rows of several steps (docs/sync-engine.md, "One person, many
   * sources"): the other client_ids of the person, which name the same platform user.
   */
  aliases?: string[];
  /**
   * Param names left empty only because the source's format cannot carry them (a bio read
   * from pretalx's XML): the plan never clears them, and keeps what was last synced
   * (docs/sync-engine.md, "Cleared fields"). Absent when the source carries every field.
   */
  uncarried?: string[];
  /**
   * Optional fields of the row left out for a problem, one message each (`row 17 (line 18),
   * social: "@ada" is not a URL: left out`): the intent is sent without them, and its result
   * carries the messages (docs/mapping.md, "Optional fields").
   */
  warnings?: string[];
  /**
   * A user of a step with `on_shared_email: suffix` whose row keeps the plain e-mail (docs/
   * mapping.md, "Shared e-mails"): when that address is another holder's account, whose key
   * has its own row, the user is created with its plus-address instead. Known to the run
   * that mapped the row only: a resume or a worker refuses such a create as before.
   */
  plusOnShare?: true;
  /**
   * The hash of `params` under `op` (`hashIntent`), made when mapping found the row synced as
   * it is (`MapSourceOptions.syncedHash`): the plan takes it instead of hashing again while
   * `params` is still that object (a stage that changes params makes a new object).
   */
  knownHash?: { params: FlatParams; op: 'upsert' | 'remove'; hash: string };
}

/** A parent ref as one string: the key of the dependency gate's and the key holds' maps. */
export function dependencyKey(dep: { kind: IntentKind; clientId: string }): string {
  return `${dep.kind}\u0000${dep.clientId}`;
}

/** The parent refs a user or event answers to: its key, and a merged user's other client_ids. */
export function parentRefs(item: {
  kind: ParentKind;
  key: string;
  aliases?: readonly string[];
}): IntentDependency[] {
  const refs: IntentDependency[] = [{ kind: item.kind, clientId: item.key }];
  for (const alias of item.aliases ?? []) refs.push({ kind: item.kind, clientId: alias });
  return refs;
}
