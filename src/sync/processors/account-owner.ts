import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { namesAgree } from '../../model/person.js';
import type { PlatformUser } from '../../platform/response-schemas.js';
import type { ProcessorContext } from './processor.js';

const FIRST = 'user[first_name]';
const LAST = 'user[last_name]';

/**
 * Refuses to write a row's details into a platform user that is another person's account
 * (docs/sync-engine.md, "Who is who"). A user found by the row's e-mail (a 422 "already
 * taken", a create whose answer was lost) or attached by 203 may carry other client_ids;
 * when one of them is a key the ledger maps to this very user, or a key the run's source
 * has, and its name and the row's name disagree (`namesAgree`), the e-mail moved from one
 * person to another in the source (or a join gave it to the wrong one): writing would
 * rename that person's account into this one. The row fails instead, naming both keys and
 * both names; the same name under a new key (a person re-keyed by the registration system)
 * passes.
 *
 * The platform lists a user's client_ids (spec §2.3); a platform that leaves them out gives
 * nothing to check, and the row is sent as before.
 */
export async function refuseAnothersAccount(
  found: PlatformUser,
  item: PlannedIntent,
  context: ProcessorContext,
  how: string,
): Promise<void> {
  const own = new Set([item.key, ...(item.aliases ?? [])]);
  const others = (found.client_ids ?? []).filter((key) => !own.has(key));
  if (others.length === 0) return;
  const rowName = fullName(item.params[FIRST], item.params[LAST]);
  const accountName = fullName(found.first_name, found.last_name);
  if (namesAgree(rowName, accountName)) return;
  for (const other of others) {
    const mapped = (await context.ids.get('user', other)) === found.id;
    if (!mapped && context.inSource?.('user', other) !== true) continue;
    throw new EvsyncError(
      `platform user ${found.id} "${accountName}" (${how}) is the account of key "${other}", and this row's key "${item.key}" is "${rowName}": ` +
        `one person's account is never given to another, so nothing was written to it. If they are one person, make the names agree in the source; if not, give "${item.key}" their own e-mail`,
      { code: CODE.EVSYNC_ACCOUNT_OF_ANOTHER },
    );
  }
}

function fullName(first: string | null | undefined, last: string | null | undefined): string {
  return [first ?? '', last ?? '']
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .join(' ');
}
