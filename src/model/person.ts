/**
 * Who a user row describes, across the steps of a job (docs/sync-engine.md, "One person,
 * many sources"): its e-mail, trimmed and lower-cased. The platform holds one user per
 * e-mail in a conference and finds users by it case-insensitively, so two rows whose
 * e-mails differ only in case or surrounding spaces are one person there too.
 */
export type PersonKey = string & { readonly person: unique symbol };

/** The person an e-mail names, or undefined for an empty one. */
export function personKey(email: string | undefined): PersonKey | undefined {
  const normal = email === undefined ? undefined : lowerCase(email.trim());
  return normal ? (normal as PersonKey) : undefined;
}

/**
 * `text` in lower case, except that a code point outside ASCII never becomes ASCII: the
 * Kelvin sign (U+212A) lower-cases to `k`, and `\u212Aate@x.org` would otherwise be
 * `kate@x.org`, another person's address (docs/sync-engine.md, "Who is who"). Such an
 * address stays non-ASCII, and the e-mail rule refuses it.
 */
export function lowerCase(text: string): string {
  const lower = text.toLowerCase();
  // Nearly every value is ASCII, and then nothing can fold into it.
  if (!NON_ASCII.test(text)) return lower;
  let out = '';
  for (const char of text) {
    const folded = char.toLowerCase();
    out += char.charCodeAt(0) >= 0x80 && !NON_ASCII.test(folded) ? char : folded;
  }
  return out;
}

// Without the `u` flag: a plain range test is several times faster on every cell of a file.
/** `a` stands for `b`: its initial, or a short form of at least three letters (`Ann`, `Anna`). */
function shortFor(a: string, b: string): boolean {
  return b.startsWith(a) && (a.length === 1 || a.length >= 3);
}

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * A person's name as names are compared (docs/sync-engine.md, "Who is who"): accents,
 * case, punctuation and spacing left out, `ß` as `ss`; the words in their order.
 */
export function nameWords(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/['’`´]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

/**
 * Whether two names can be one person's. Equal once folded ({@link nameWords}), in any
 * order; or every word of the shorter name is a word of the longer one, its initial or a
 * short form of three letters or more (`A. Lovelace`, `Ann One` and `Anna One`; `Ada
 * Lovelace` and `Ada King Lovelace`), with at least one whole word in common. An empty
 * name says nothing and agrees with any.
 */
export function namesAgree(a: string, b: string): boolean {
  const left = nameWords(a);
  const right = nameWords(b);
  if (left.length === 0 || right.length === 0) return true;
  // Whole words in common first, so that an initial does not take a word another needs.
  let whole = 0;
  const rest = [...right];
  const unpaired: string[] = [];
  for (const word of left) {
    const at = word.length > 1 ? rest.indexOf(word) : -1;
    if (at === -1) unpaired.push(word);
    else {
      rest.splice(at, 1);
      whole += 1;
    }
  }
  // What is left of the shorter name pairs with words of the longer as an initial and its word.
  const [short, long] = unpaired.length <= rest.length ? [unpaired, rest] : [rest, unpaired];
  for (const word of short) {
    const at = long.findIndex((other) => shortFor(word, other) || shortFor(other, word));
    if (at === -1) return false;
    long.splice(at, 1);
  }
  return whole > 0;
}

/** Who a key names, as a row says or as it was last synced: a full name and an e-mail. */
export interface NamedPerson {
  name: string;
  email: string;
}

/**
 * Whether `now` is another person than `was` under one key (docs/sync-engine.md, "Who is
 * who"): both e-mails given and different ({@link personKey}), and names not alike
 * ({@link namesAlike}); or one e-mail, and names with no word in common ({@link namesApart}):
 * an e-mail an order or a household shares (a buyer's address on every ticket of the order,
 * `on_shared_email`) says nothing of who holds each ticket. A new name sharing a word with
 * the old under the same e-mail (a typo fixed, a marriage), or a new e-mail under a
 * name alike, is the same person; an empty e-mail says nothing.
 */
export function anotherPerson(was: NamedPerson, now: NamedPerson): boolean {
  const wasEmail = personKey(was.email);
  const nowEmail = personKey(now.email);
  if (wasEmail === undefined || nowEmail === undefined) return false;
  if (wasEmail === nowEmail) return namesApart(was.name, now.name);
  return !namesAlike(was.name, now.name);
}

/**
 * Whether two names are one person's with nothing else to tell: every word of the shorter
 * is a whole word of the longer, once folded ({@link spokenWords}: an umlaut spelt out alike).
 * A new e-mail is such a case: a ticket handed on within a family keeps the surname, and a
 * first name that merely starts like the other's (`Paul` and `Paula`, `Jan` and `Jana`) or
 * an initial is no proof, where {@link namesAgree} takes them for one person's. An empty
 * name says nothing and is alike with any.
 */
export function namesAlike(a: string, b: string): boolean {
  const left = spokenWords(a);
  const right = spokenWords(b);
  if (left.length === 0 || right.length === 0) return true;
  const [short, long] = left.length <= right.length ? [left, right] : [right, left];
  const rest = [...long];
  for (const word of short) {
    const at = rest.indexOf(word);
    if (at === -1) return false;
    rest.splice(at, 1);
  }
  return true;
}

/**
 * Two full names with no word in common, not even as an initial, a short form or spelt
 * without umlauts ({@link nameWords}; `Müller` is `Mueller`): `Anna Alpha` and `Zoe Zulu`,
 * never `Jon Smith` and `John Smith`. A name of one word says nothing: a speaker's handle
 * beside their name (`lasermo` for `Moritz Hilscher`, as pretalx's public names go), and an
 * empty name neither.
 */
export function namesApart(a: string, b: string): boolean {
  const left = spokenWords(a);
  const right = spokenWords(b);
  // Distinct words: a one-word name is often written as both first and last (`lasermo lasermo`).
  if (new Set(left).size < 2 || new Set(right).size < 2) return false;
  return !left.some((x) => right.some((y) => x === y || shortFor(x, y) || shortFor(y, x)));
}

/** A name's words ({@link nameWords}), an umlaut spelt out folded as the umlaut is: `Mueller` and `Müller` are both `muller`. */
function spokenWords(name: string): string[] {
  return nameWords(name).map((word) => word.replace(/([aou])e/g, '$1'));
}

/** First and last name as one, the empty parts left out. */
export function fullName(first: string | null | undefined, last: string | null | undefined): string {
  return [first ?? '', last ?? '']
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .join(' ');
}

/**
 * A user's `membership` (spec §4.2), highest first: when steps disagree and the job does
 * not say which wins, the highest is kept, so that a speaker stays a speaker whichever
 * other list also has the person as press or member (docs/sync-engine.md).
 */
export const MEMBERSHIP_RANK = ['moderator', 'speaker', 'exhibitor', 'press', 'member', 'rejected'] as const;

/** A membership's place in {@link MEMBERSHIP_RANK} (0 is highest); unknown values come last. */
export function membershipRank(value: string): number {
  const rank = (MEMBERSHIP_RANK as readonly string[]).indexOf(value.trim().toLowerCase());
  return rank === -1 ? MEMBERSHIP_RANK.length : rank;
}
