import { CODE } from '../errors/codes.js';
import type { Intent } from '../model/intent.js';
import { describeOrigin, type RowOrigin } from '../model/row-origin.js';
import { emailParam } from '../platform/vendor.js';
import { quote } from '../platform/write-params/text-rules.js';
import { prefixedLowerCaseHash } from './key-registry.js';
import type { InvalidItem } from './mapped-item.js';
import { nameHash, nameOf, NO_NAME } from './shared-email.js';

/** The e-mail hash of a row without one, or of a row not recorded. */
const NO_EMAIL = 0;

/**
 * User rows of one step that give one key to two people (docs/mapping.md, "Keys,
 * duplicates and dependencies"): a repeated ticket id under another e-mail and another
 * name is not a duplicate to drop but a person the export mixed up with another, and
 * under `on_duplicate: last` it would take over the first person's account. Each row that
 * holds a user key leaves a print of its person, a hash of the name and one of the e-mail,
 * 8 bytes a row by row number (a million-row file: 8 MB). A later row of the key is the
 * same person when it repeats either (a corrected name, or a changed e-mail), or when the
 * holder left one of them empty. A row with two user intents leaves no print.
 */
export class SharedKeys {
  private readonly email: string;
  /** `[name, email]` of row `r` at `2 * r`. */
  private prints = new Int32Array(2 * 1024);

  constructor(vendor: string) {
    this.email = emailParam(vendor);
  }

  /** Remembers who `row`, now holding its keys, is: when it has one user intent. */
  record(row: number, intents: readonly Intent[]): void {
    let user: Intent | undefined;
    for (const intent of intents) {
      if (intent.kind !== 'user') continue;
      if (user !== undefined) return;
      user = intent;
    }
    if (user === undefined) return;
    if (2 * row + 1 >= this.prints.length) {
      const grown = new Int32Array(Math.max(this.prints.length * 2, 2 * row + 2));
      grown.set(this.prints);
      this.prints = grown;
    }
    this.prints[2 * row] = nameHash(user);
    this.prints[2 * row + 1] = this.emailOf(user);
  }

  /** Whether a row repeating a user key held by `holder` is that row's person. */
  samePerson(holder: number, intent: Intent): boolean {
    const known = 2 * holder + 1 < this.prints.length ? this.prints[2 * holder + 1]! : NO_EMAIL;
    const email = this.emailOf(intent);
    // An unrecorded holder, or a row without an e-mail: nothing says it is someone else.
    if (known === NO_EMAIL || email === NO_EMAIL || email === known) return true;
    const name = nameHash(intent);
    const holderName = this.prints[2 * holder]!;
    return name === NO_NAME || holderName === NO_NAME || name === holderName;
  }

  /** The row that repeats `firstRow`'s key for another person: stopped, whatever `on_duplicate` says. */
  refuse(intent: Intent, field: string, firstRow: number, origin: RowOrigin): InvalidItem {
    const email = intent.params[this.email] ?? '';
    return {
      type: 'invalid',
      origin,
      kind: intent.kind,
      problems: [
        {
          field,
          code: CODE.MAPPING_SHARED_KEY,
          message:
            `${describeOrigin(origin)}: client_id ${quote(intent.key)} was already used by row ${firstRow} for another person ` +
            `(another name and e-mail than ${quote(nameOf(intent))}, ${quote(email)}): one id must not stand for two people; ` +
            `row ${firstRow} keeps it. Give each person their own id in the source, or key the mapping on a column that tells them apart`,
        },
      ],
      keys: [{ kind: intent.kind, key: intent.key }],
      params: intent.params,
    };
  }

  private emailOf(intent: Intent): number {
    const email = intent.params[this.email];
    return email === undefined || email === '' ? NO_EMAIL : prefixedLowerCaseHash('', email)[0] | 0 || 1;
  }
}
