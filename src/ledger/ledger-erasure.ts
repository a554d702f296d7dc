/**
 * Erasure below the interface (docs/privacy.md): the ledger finds what it holds about a
 * person, replaces it with markers, and keeps tombstones of keyed hashes. Who the person is
 * and what to hash is decided above it (`src/sync/erasure/`).
 */
export interface LedgerErasure {
  /** The ledger's erasure key, made on first use (32 random bytes; never the signing key). */
  key(): Promise<Buffer>;
  /** The person's user rows in the conference's runs, by any of their client_ids or e-mails. */
  findPerson(conferenceId: number, lookup: PersonLookup): Promise<LedgerPerson>;
  /**
   * Replaces every stored trace of the person in the conference's runs with markers, drops
   * their synced state and platform ids, all in one transaction; with `dryRun` counts the
   * same and keeps nothing. With `compact` (the embedded ledger, whose folder is the backup:
   * docs/privacy.md) the tables that hold people are then rewritten, with the statistics and the
   * write-ahead log, so that the ledger's files no longer hold the replaced rows.
   */
  scrub(
    conferenceId: number,
    scrub: PersonScrub,
    options: { dryRun: boolean; compact: boolean },
  ): Promise<ScrubTally>;
  addTombstone(tombstone: NewTombstone): Promise<TombstoneRecord>;
  /** The hashes of the conference's tombstones not lifted. */
  activeHashes(conferenceId: number): Promise<Set<string>>;
  /** Lifts the conference's tombstones holding any of `hashes`; returns those lifted. */
  lift(conferenceId: number, hashes: readonly string[], liftedBy: string): Promise<TombstoneRecord[]>;
  /** Every tombstone, newest first: no personal data, only dates, reasons and counts. */
  list(): Promise<TombstoneRecord[]>;
}

export interface PersonLookup {
  /** Lower-cased e-mails. */
  emails: readonly string[];
  clientIds: readonly string[];
  /** The user params holding the e-mail and the names (vendor-specific names). */
  emailParam: string;
  firstNameParam: string;
  lastNameParam: string;
}

export interface LedgerPerson {
  clientIds: string[];
  emails: string[];
  /** The e-mails as the rows wrote them (case kept), for the messages that quote them. */
  rawEmails: string[];
  /** Full names as the rows gave them (`First Last`), for the messages that quote them. */
  names: string[];
  /** Platform user ids by client_id, from the conference's id map: the person's accounts only. */
  platformIds: Map<string, number>;
  /**
   * The person's client_ids that rows of other people use too (a ticket handed on and
   * refused, a key reused): those rows are not the person's, and are left as they are.
   */
  sharedKeys: string[];
  /** Of `sharedKeys`, those whose platform account (id map, synced state, hold) is another's. */
  keysOfAnother: string[];
  /** The e-mails (lower-cased) of the other people's rows under the person's keys. */
  otherEmails: string[];
  /** How many other people those rows name. */
  otherPeople: number;
}

export interface PersonScrub {
  /** The person's user client_ids: their rows are marked, their platform ids dropped. */
  clientIds: readonly string[];
  /** How link keys name the person (`keyPart` of each client_id, `#id`, `email:…`, `user:id`). */
  userParts: readonly string[];
  /** Texts to replace in other rows' messages and params: e-mails, quoted client_ids and names. */
  texts: ReadonlyArray<{ text: string; replacement: string }>;
  /** The marker of a key of the person, a user's or a link's (`erasureMarker`). */
  markerOf(kind: string, key: string): string;
  /** The user param holding the e-mail (`otherEmails` are compared in it). */
  emailParam: string;
  /** The other people's e-mails under the person's keys: their user rows are left as they are. */
  otherEmails: readonly string[];
  /** Keys whose synced state (hashes, hold, id map, unchanged lists) is another's: kept. */
  keysOfAnother: readonly string[];
}

/** Rows touched per table. */
export type ScrubTally = Record<string, number>;

export interface NewTombstone {
  conferenceId: number;
  hashes: readonly string[];
  reason: string | null;
  erasedBy: string;
  removed: Record<string, unknown>;
}

export interface TombstoneRecord {
  id: number;
  conferenceId: number;
  /** How many identifiers (e-mails and client_ids) it holds, never which. */
  identifiers: number;
  reason: string | null;
  erasedBy: string;
  createdAt: Date;
  removed: Record<string, unknown>;
  liftedAt: Date | null;
  liftedBy: string | null;
}
