import { CODE } from '../errors/codes.js';
import type { Intent } from '../model/intent.js';
import { describeOrigin, type RowOrigin } from '../model/row-origin.js';
import { lowerCase, nameWords } from '../model/person.js';
import { emailConfirmationParam, emailParam } from '../platform/vendor.js';
import { quote } from '../platform/write-params/text-rules.js';
import { prefixedKeyHash, type KeyHash } from './key-registry.js';
import type { MappedItem, OnSharedEmail } from './mapped-item.js';

const FIRST = 'user[first_name]';
const LAST = 'user[last_name]';
/** In front of the hash of an e-mail and a name: apart from keys and `unique:` values. */
const PERSON_PREFIX = 'person\u0000';

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
  private readonly confirmation: string;
  /** Plus-addresses given (`on_shared_email: suffix`), for the step's notes. */
  readonly suffixed: string[] = [];

  constructor(
    vendor: string,
    readonly policy: OnSharedEmail,
  ) {
    this.email = emailParam(vendor);
    this.confirmation = emailConfirmationParam(vendor);
  }

  /** The e-mail param of users, which `unique:` must name for rows to be compared. */
  get param(): string {
    return this.email;
  }

  /** The hash that says "this e-mail is this person's"; the empty name too, for a row with none. */
  personHash(email: string, intent: Intent): KeyHash {
    return prefixedKeyHash(PERSON_PREFIX, `${lowerCase(email)}\u0000${nameKey(intent)}`);
  }

  /** Whether a row repeating `email` is the person who used it first (`known`: a stored hash's row). */
  samePerson(email: string, intent: Intent, known: (hash: KeyHash) => number | undefined): boolean {
    if (nameKey(intent) === '') return true;
    if (known(this.personHash(email, intent)) !== undefined) return true;
    // The first row gave no name: nothing says it is someone else.
    return known(prefixedKeyHash(PERSON_PREFIX, `${lowerCase(email)}\u0000`)) !== undefined;
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
              message: `${said}; put the holder's own e-mail in the source, or set on_shared_email: first or suffix in the mapping`,
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
        const params = { ...intent.params, [this.email]: plus };
        if (params[this.confirmation] !== undefined) params[this.confirmation] = plus;
        return { ...intent, params };
      }
    }
  }
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

function nameOf(intent: Intent): string {
  return [intent.params[FIRST] ?? '', intent.params[LAST] ?? '']
    .filter((part) => part.trim() !== '')
    .join(' ');
}

/** The name as compared: words folded (`nameWords`), or plain lower-case ASCII words for most rows. */
function nameKey(intent: Intent): string {
  const name = `${intent.params[FIRST] ?? ''} ${intent.params[LAST] ?? ''}`;
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(name))
    return name
      .toLowerCase()
      .replace(/['`]/g, '')
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
  return nameWords(name).join(' ');
}
