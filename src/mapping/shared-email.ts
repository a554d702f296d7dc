import { CODE } from '../errors/codes.js';
import type { Intent } from '../model/intent.js';
import type { FlatParams } from '../model/params.js';
import { describeOrigin, type RowOrigin } from '../model/row-origin.js';
import { emailConfirmationParam, emailParam } from '../platform/vendor.js';
import { quote } from '../platform/write-params/text-rules.js';
import { taggedHash, type KeyHash } from './key-registry.js';
import type { MappedItem, OnSharedEmail } from './mapped-item.js';

const FIRST = 'user[first_name]';
const LAST = 'user[last_name]';

/**
 * Rows of one step that give one e-mail to people of different names (docs/mapping.md,
 * "Shared e-mails"): a pretix check-in list or an Eventbrite group order puts the buyer's
 * e-mail on every ticket, and the platform keeps one user per e-mail, so all holders but
 * the first would be lost in silence. Each accepted user row stores a hash of its e-mail
 * and name beside its `unique:` e-mail; a later row repeating the e-mail under a name that
 * hash does not know is another person. Rows that repeat one person (the same e-mail and
 * name: case, accents, punctuation and spacing aside) stay the duplicates they are.
 */
export class SharedEmails {
  private readonly email: string;
  /** Plus-addresses given (`on_shared_email: suffix`), for the step's notes. */
  readonly suffixed: string[] = [];

  constructor(
    private readonly vendor: string,
    readonly policy: OnSharedEmail,
  ) {
    this.email = emailParam(vendor);
  }

  /** The e-mail param of users, which `unique:` must name for rows to be compared. */
  get param(): string {
    return this.email;
  }

  /** The hash that says "this e-mail is this person's" (`email`: the e-mail's `unique:` hash); the empty name too, for a row with none. */
  personHash(email: KeyHash, intent: Intent): KeyHash {
    return taggedHash(email, nameHash(intent));
  }

  /** Whether a row repeating the e-mail hashed `email` is the person who used it first (`known`: a stored hash's row). */
  samePerson(email: KeyHash, intent: Intent, known: (hash: KeyHash) => number | undefined): boolean {
    const name = nameHash(intent);
    if (name === NO_NAME) return true;
    if (known(taggedHash(email, name)) !== undefined) return true;
    // The first row gave no name: nothing says it is someone else.
    return known(taggedHash(email, NO_NAME)) !== undefined;
  }

  /** What becomes of a row that shares `email` with `firstRow`, under the mapping's policy. */
  handle(intent: Intent, email: string, firstRow: number, origin: RowOrigin): MappedItem | Intent {
    const who = nameOf(intent);
    const said = `${describeOrigin(origin)}: same e-mail ${quote(email)} as row ${firstRow}, a different person (${quote(who)}): the platform keys users by e-mail`;
    const keys = [{ kind: intent.kind, key: intent.key }];
    switch (this.policy) {
      case 'error':
        return {
          type: 'invalid',
          origin,
          kind: intent.kind,
          problems: [
            {
              field: 'email',
              code: CODE.MAPPING_SHARED_EMAIL,
              message: `${said}; put the holder's own e-mail in the source, or set on_shared_email: first or suffix on the job's step`,
            },
          ],
          keys,
          params: intent.params,
        };
      case 'first':
        return {
          type: 'skipped',
          origin,
          kind: intent.kind,
          code: CODE.MAPPING_SHARED_EMAIL,
          reason: `${said}; the first row keeps it (on_shared_email: first)`,
        };
      case 'suffix': {
        const plus = plusAddress(email, intent.key);
        this.suffixed.push(`${describeOrigin(origin)} ${quote(who)}: ${plus}`);
        return { ...intent, params: withEmail(intent.params, plus, this.vendor) };
      }
    }
  }
}

/** A user's params with another e-mail, its confirmation too when the params carry one. */
export function withEmail(params: FlatParams, email: string, vendor: string): FlatParams {
  const copy = { ...params, [emailParam(vendor)]: email };
  const confirmation = emailConfirmationParam(vendor);
  if (copy[confirmation] !== undefined) copy[confirmation] = email;
  return copy;
}

/** `anna@example.org` and key `eb-1002` → `anna+eb-1002@example.org`: mail still reaches the buyer. */
export function plusAddress(email: string, key: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const tag = key
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  // At most 64 characters before the `@` (RFC 5321).
  const room = Math.max(1, 64 - local.length - 1);
  return `${local}+${tag.slice(-room)}${email.slice(at)}`;
}

/** The row's first and last name as written, for a message. */
export function nameOf(intent: Intent): string {
  return [intent.params[FIRST] ?? '', intent.params[LAST] ?? '']
    .filter((part) => part.trim() !== '')
    .join(' ');
}

/**
 * A hash of the name as compared: its letters and digits in lower case, accents,
 * punctuation and spacing left out; {@link NO_NAME} when none is left. Every user row of a
 * mapping with a unique e-mail goes through here, so each character is folded as it is read
 * (a character outside ASCII by a table filled on first sight), without building a string.
 */
export function nameHash(intent: Intent): number {
  const first = intent.params[FIRST] ?? '';
  const last = intent.params[LAST] ?? '';
  let hash = NO_NAME;
  for (const part of [first, last]) {
    for (let i = 0; i < part.length; i++) {
      let c = part.charCodeAt(i);
      if (c < 0x80) {
        if (c >= 65 && c <= 90) c += 32;
        else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) continue;
        hash = Math.imul(hash ^ c, 0x01000193);
        continue;
      }
      // A character outside the BMP (a surrogate pair) is folded with the whole name.
      if (c >= 0xd800 && c <= 0xdfff) return foldedHash(fold(`${first}${last}`));
      let folded = FOLDED[c];
      if (folded === undefined) FOLDED[c] = folded = fold(String.fromCharCode(c));
      for (let j = 0; j < folded.length; j++) hash = Math.imul(hash ^ folded.charCodeAt(j), 0x01000193);
    }
  }
  return hash;
}

/**
 * Lower case, accents and everything but letters and digits left out (letters of other
 * scripts are kept; combining accents are not letters). The final sigma is the sigma:
 * a character folded alone cannot know it ends a word.
 */
function fold(text: string): string {
  return text
    .toLowerCase()
    .replaceAll('ς', 'σ')
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

function foldedHash(folded: string): number {
  let hash = NO_NAME;
  for (let i = 0; i < folded.length; i++) hash = Math.imul(hash ^ folded.charCodeAt(i), 0x01000193);
  return hash;
}

/** {@link fold} of each character outside ASCII met so far, by its code. */
const FOLDED: string[] = [];

/** The hash of no name at all (FNV-1a's offset basis): a row without one. */
export const NO_NAME = 0x811c9dc5 | 0;
