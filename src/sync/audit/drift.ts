import type { IntentKind } from '../../model/intent.js';
import type { ListOptions } from '../../platform/paginate.js';
import type { PlatformEvent, PlatformUser } from '../../platform/response-schemas.js';
import type { Ledger } from '../../ledger/ledger.js';
import { PlatformHttpError } from '../../platform/platform-error.js';
import { differences, type AuditedKind, type PlatformObject, type SourceField } from './audited-fields.js';

/**
 * - `missing`: the source has it and a run synced it, the platform no longer has it;
 * - `changed`: the platform shows another value than the source says now;
 * - `another_person`: a user whose source row now names another person than the account
 *   under its key (`anotherPerson`: the platform's name, and the e-mail last synced, as §2.3
 *   shows none): a ticket handed on, not a hand edit; never repaired (a run refuses it,
 *   docs/sync-engine.md, "Who is who");
 * - `extra`: on the platform, carrying no key of this job nor any the ledger knows;
 * - `erased`: on the platform again, though erased with `evsync forget` (a client_id a
 *   tombstone holds): someone re-added them; never repaired (docs/privacy.md).
 */
export type DriftType = 'missing' | 'changed' | 'another_person' | 'extra' | 'erased';

/**
 * Whether `--repair` sends the entry's object again: never an extra, an erased person, nor
 * another person under a key (writing them would turn one person's account into another's).
 */
export function isRepairable(entry: Pick<DriftEntry, 'type'>): boolean {
  return entry.type === 'missing' || entry.type === 'changed';
}

/** One difference between the platform and the source (docs/audit.md). */
export interface DriftEntry {
  kind: IntentKind;
  /** The source's key; for an extra, its first client_id, or `#<platform id>`. */
  key: string;
  type: DriftType;
  /** The write params that differ (`changed` only). */
  fields: string[];
  platform_id: number | null;
  /** For a person: which values differ, or what is missing or extra. */
  detail: string;
}

/** Per kind: what the audit found. */
export interface KindAudit {
  in_sync: number;
  missing: number;
  changed: number;
  /** Users whose row now names another person than their account (`another_person`). */
  another_person: number;
  extra: number;
  /** Erased people found on the platform again (`erased`). */
  erased: number;
  /** In the source but never synced: a run would create it; no drift. */
  not_synced: number;
  /** Source intents of a kind the platform gives no read for. */
  not_auditable: number;
}

export type AuditSummary = Partial<Record<IntentKind, KindAudit>>;

export function emptyKindAudit(): KindAudit {
  return {
    in_sync: 0,
    missing: 0,
    changed: 0,
    another_person: 0,
    extra: 0,
    erased: 0,
    not_synced: 0,
    not_auditable: 0,
  };
}

/** The read endpoints the audit uses; `PlatformClient` satisfies it. */
export interface AuditPlatform {
  readonly vendor: string;
  readonly users: {
    list(options?: ListOptions): AsyncIterable<PlatformUser>;
    get(id: number): Promise<PlatformUser>;
  };
  readonly events: {
    list(options?: ListOptions): AsyncIterable<PlatformEvent>;
    get(id: number): Promise<PlatformEvent>;
  };
}

export type AuditLedger = Pick<
  Ledger,
  'loadIdMap' | 'hashesOf' | 'erasure' | 'conference' | 'syncedParams' | 'removedKeysLastSent'
>;

/** Where an audit's findings go, one at a time (the CLI keeps examples, writes the report). */
export type DriftSink = (entry: DriftEntry) => void;

/** The largest page §4 allows (docs/design.md, "our conventions"): fewest calls. */
export const AUDIT_PAGE_LIMIT = 100;

/** Keys asked of the ledger at once. */
const HASH_CHUNK = 1_000;

/** The keys among `keys` a run synced (they have a synced hash). */
export async function syncedAmong(
  ledger: AuditLedger,
  kind: IntentKind,
  keys: readonly string[],
): Promise<Set<string>> {
  const synced = new Set<string>();
  for (let at = 0; at < keys.length; at += HASH_CHUNK) {
    const hashes = await ledger.hashesOf(kind, keys.slice(at, at + HASH_CHUNK));
    for (const key of hashes.keys()) synced.add(key);
  }
  return synced;
}

/**
 * The source's keys no platform page showed: `missing` when a run synced them (the sink is
 * told, with the platform id the id map had), `not synced` otherwise. A synced key with a
 * platform id is read again by that id first (`reread`): another client removing and adding
 * users while the audit pages through `GET /user` shifts the pages, and a user present all
 * along can fall between two of them. One found so is compared as a page would have been
 * (`found`); only a 404 makes it missing.
 */
export async function reportUnmatched(
  deps: { ledger: AuditLedger; sink: DriftSink },
  kind: 'user' | 'event',
  unmatched: readonly string[],
  audit: KindAudit,
  ids: ReadonlyMap<string, number>,
  detail: string,
  reread: (id: number) => Promise<(PlatformObject & { id: number }) | undefined>,
  found: (key: string, shown: PlatformObject & { id: number }) => void | Promise<void>,
): Promise<void> {
  const synced = await syncedAmong(deps.ledger, kind, unmatched);
  for (const key of unmatched) {
    if (!synced.has(key)) {
      audit.not_synced += 1;
      continue;
    }
    const id = ids.get(key);
    const shown = id === undefined ? undefined : await reread(id);
    if (shown !== undefined) {
      await found(key, shown);
      continue;
    }
    audit.missing += 1;
    deps.sink({ kind, key, type: 'missing', fields: [], platform_id: id ?? null, detail });
  }
}

/** `read(id)`, or undefined when the platform answers 404: the object is gone. */
export async function unlessGone<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof PlatformHttpError && error.status === 404) return undefined;
    throw error;
  }
}

/**
 * A source object compared with the platform's answer for it: `in sync`, or `changed`
 * (the sink is told the params that differ, with both values).
 */
export function compareFields(
  sink: DriftSink,
  kind: AuditedKind,
  key: string,
  fields: readonly SourceField[],
  shown: PlatformObject & { id: number },
  audit: KindAudit,
): void {
  const found = differences(kind, fields, shown);
  if (found.length === 0) {
    audit.in_sync += 1;
    return;
  }
  audit.changed += 1;
  sink({
    kind,
    key,
    type: 'changed',
    fields: found.map((field) => field.param),
    platform_id: shown.id,
    detail: found.map((f) => `${f.param}: platform "${f.platform}", source "${f.source}"`).join('; '),
  });
}
