import { namesAgree } from '../model/person.js';

/** A user row of the ledger as `findPerson` reads it (`SELECT_PERSON_ROWS`). */
export interface PersonRow {
  key: string;
  email: string | null;
  raw_email: string | null;
  name: string;
  aliases: string[] | null;
  /** The result's `seq` when it reached the platform (created, attached, updated), else null. */
  reached: string | number | null;
}

/**
 * The rows of one person, grown from what names them (docs/privacy.md, "evsync forget"). A
 * row joins the person by an e-mail or a client_id of theirs, and must be them as well:
 * - under a client_id of theirs, its e-mail is theirs or its name agrees with theirs
 *   (`namesAgree`): a row under the same key naming someone else (a ticket handed on and
 *   refused as `EVSYNC_KEY_NOW_ANOTHER_PERSON`, a key reused) is another person;
 * - found by an e-mail alone, under another client_id, its name agrees with theirs: an
 *   address is shared (an assistant booking for two) or handed on.
 * Rows are taken until none joins, the surest first (e-mail and key both the person's), so
 * that the order the ledger answers in never decides who the person is.
 */
export class PersonRows {
  clientIds = new Set<string>();
  emails = new Set<string>();
  rawEmails = new Set<string>();
  names = new Set<string>();
  /** Rows under a client_id of the person that name another person, from the last `take`. */
  private others: PersonRow[] = [];
  /** The latest result that reached the platform under each key: the person's, and others'. */
  private reachedOwn = new Map<string, number>();
  private reachedOthers = new Map<string, number>();

  constructor(private readonly lookup: { emails: readonly string[]; clientIds: readonly string[] }) {
    this.take([], []);
  }

  /**
   * The person as `rows` make them, from what was asked for and `keys` (the client_ids their
   * accounts hold, from the id map): made again from the start each time, so that a key taken
   * for the person's before the rows of another under it were read is theirs no longer.
   */
  take(rows: readonly PersonRow[], keys: Iterable<string>): void {
    this.clientIds = new Set([...this.lookup.clientIds, ...keys]);
    this.emails = new Set(this.lookup.emails);
    this.rawEmails = new Set(this.lookup.emails);
    this.names = new Set();
    this.reachedOwn = new Map();
    let pending = [...rows];
    for (let joined = true; joined;) {
      joined = false;
      pending.sort((a, b) => this.sureness(b) - this.sureness(a));
      const left: PersonRow[] = [];
      for (const row of pending) {
        if (!this.belongs(row)) {
          left.push(row);
          continue;
        }
        this.join(row);
        joined = true;
      }
      pending = left;
    }
    this.others = pending.filter((row) => this.clientIds.has(row.key));
    this.reachedOthers = new Map();
    for (const row of this.others) latest(this.reachedOthers, row);
  }

  /** The person's client_ids that rows of another person also use. */
  sharedKeys(): string[] {
    return [...new Set(this.others.map((row) => row.key))];
  }

  /**
   * Whether the account a shared key names on the platform (its id map entry, synced state
   * and hold) is another person's: the latest row under it that reached the platform is not
   * the person's. A key nobody else uses is the person's.
   */
  keyOfAnother(key: string): boolean {
    const theirs = this.reachedOthers.get(key);
    return theirs !== undefined && theirs > (this.reachedOwn.get(key) ?? -1);
  }

  /** The e-mails of the other people's rows under the person's keys (lower-cased). */
  otherEmails(): string[] {
    return [...new Set(this.others.flatMap((row) => (row.email ? [row.email] : [])))];
  }

  /** How many other people those rows name: one per e-mail, or per name without one. */
  otherPeople(): number {
    return new Set(this.others.map((row) => row.email ?? `name:${row.name}`)).size;
  }

  private belongs(row: PersonRow): boolean {
    const byEmail = row.email !== null && this.emails.has(row.email);
    if (this.clientIds.has(row.key)) return byEmail || nameOfThePerson(row.name, this.names);
    return byEmail && nameOfThePerson(row.name, this.names);
  }

  private join(row: PersonRow): void {
    this.clientIds.add(row.key);
    for (const alias of row.aliases ?? []) this.clientIds.add(alias);
    if (row.email) this.emails.add(row.email);
    if (row.raw_email) this.rawEmails.add(row.raw_email);
    if (row.name !== '') this.names.add(row.name);
    latest(this.reachedOwn, row);
  }

  /** Rows naming the person by both e-mail and key first, then by e-mail, then by key. */
  private sureness(row: PersonRow): number {
    return (row.email !== null && this.emails.has(row.email) ? 2 : 0) + (this.clientIds.has(row.key) ? 1 : 0);
  }
}

function latest(reached: Map<string, number>, row: PersonRow): void {
  if (row.reached === null) return;
  const seq = Number(row.reached);
  if (seq > (reached.get(row.key) ?? -1)) reached.set(row.key, seq);
}

/** Whether a row's name is one of the person's (an empty name, or a person yet unnamed, agrees). */
function nameOfThePerson(name: string, names: ReadonlySet<string>): boolean {
  if (name === '' || names.size === 0) return true;
  for (const known of names) if (namesAgree(known, name)) return true;
  return false;
}
