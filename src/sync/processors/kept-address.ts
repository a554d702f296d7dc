import type { FlatParams } from '../../model/params.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { plusAddress, withEmail } from '../../mapping/shared-email.js';
import type { PlatformUser } from '../../platform/response-schemas.js';
import { emailParam } from '../../platform/vendor.js';
import { isAlreadyThere, type CallCounter } from './process-outcome.js';
import type { ProcessorContext } from './processor.js';
import { holderInThisRun } from './account-owner.js';

/**
 * The update of a user by one of its keys, keeping the address its account has where the
 * row's is only `on_shared_email: suffix`'s choice (docs/mapping.md, "Shared e-mails"). Of
 * the holders of an order's e-mail, the first row keeps it and the others get
 * `local+<key>@domain`; which row is first follows the export, and a cancelled first ticket,
 * or the rows sorted by name, made another holder first. Sent as it came, the buyer's own
 * account moved to a plus-address and the next holder's took the buyer's login (or answered
 * 422 "taken" every night while the cancelled holder's account kept it). So:
 * - a row given this key's plus-address keeps the plain one when the key's account holds it;
 * - a row given the plain address, refused as another account's, keeps this key's
 *   plus-address when the key's account holds that.
 * The platform's user shows no e-mail: the account holding an address is asked by it, one
 * read, and only for a row whose address is one of this key's pair.
 */
export async function updateKeepingAddress(
  key: string,
  item: PlannedIntent,
  params: FlatParams,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<{ user: PlatformUser; kept?: string }> {
  const vendor = context.platform.vendor;
  const email = item.params[emailParam(vendor)];
  const plain = email === undefined ? undefined : plainOf(email, key);
  if (plain !== undefined) {
    const holder = await counter.call(() => context.platform.users.getByEmail(plain));
    if (holder !== undefined && (holder.client_ids ?? []).includes(key)) {
      const user = await counter.call(() =>
        context.platform.users.update(holder.id, withEmail(params, plain, vendor)),
      );
      return { user, kept: keptNote(plain, email!, key) };
    }
  }
  try {
    return { user: await counter.call(() => context.platform.users.update({ clientId: key }, params)) };
  } catch (error) {
    if (email === undefined || !email.includes('@') || !isAlreadyThere(error, 'email')) throw error;
    const plus = plusAddress(email, key);
    const holder = await counter.call(() => context.platform.users.getByEmail(plus));
    if (holder === undefined || !(holder.client_ids ?? []).includes(key)) throw error;
    const user = await counter.call(() =>
      context.platform.users.update(holder.id, withEmail(params, plus, vendor)),
    );
    return { user, kept: keptNote(plus, email, key) };
  }
}

/** `anna@example.org` for `anna+eb-1002@example.org` and key `eb-1002`; undefined for any other address. */
export function plainOf(email: string, key: string): string | undefined {
  const at = email.lastIndexOf('@');
  const plus = email.lastIndexOf('+', at);
  if (at < 0 || plus < 0) return undefined;
  const plain = email.slice(0, plus) + email.slice(at);
  return plusAddress(plain, key) === email ? plain : undefined;
}

function keptNote(kept: string, asked: string, key: string): string {
  return (
    `kept ${kept}, the address the account of "${key}" has: the row's ${asked} is the other of the pair ` +
    'on_shared_email: suffix gives an order\'s holders, and which holder the export lists first moved (docs/mapping.md, "Shared e-mails")'
  );
}

/**
 * The row's params with its plus-address, when a create under `on_shared_email: suffix`
 * (`Intent.plusOnShare`) found its plain address on another holder's account: a key of that
 * account has its own row in this run, under a name not alike. The order's rows came in
 * another order (a new first ticket, a cancelled one), and the holder whose account has the
 * address keeps it (`updateKeepingAddress`); this one gets the address the mapping gives
 * the order's other holders. Undefined otherwise: the row is checked as any other.
 */
export function paramsApart(
  found: PlatformUser,
  item: PlannedIntent,
  params: FlatParams,
  context: ProcessorContext,
): FlatParams | undefined {
  if (item.plusOnShare !== true) return undefined;
  const vendor = context.platform.vendor;
  const email = params[emailParam(vendor)];
  if (email === undefined || !email.includes('@') || plainOf(email, item.key) !== undefined) return undefined;
  if (holderInThisRun(found, item, context) === undefined) return undefined;
  return withEmail(params, plusAddress(email, item.key), vendor);
}
