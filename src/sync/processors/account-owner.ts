import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { FlatParams } from '../../model/params.js';
import {
  anotherPerson,
  fullName,
  namesAgree,
  namesAlike,
  personKey,
  type NamedPerson,
} from '../../model/person.js';
import { describeOrigin } from '../../model/row-origin.js';
import type { PlatformUser } from '../../platform/response-schemas.js';
import { emailParam } from '../../platform/vendor.js';
import type { ProcessorContext } from './processor.js';
import { KeyOfAnotherPersonError } from './process-outcome.js';

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
  /**
   * A user of this conference found by the row's e-mail (a 422 "already taken") that lists
   * no client_id at all, or only client_ids neither the ledger nor the source knows, is an
   * account made on the platform by hand (a staff moderator) or by another tool: under
   * another name it is refused too, so that a registrant who types a colleague's address
   * does not rename the colleague's account and set its membership. Not for a 203, whose
   * user another conference may hold (`refuseOtherConferencesPerson`).
   */
  options: { unkeyed?: 'refuse' } = {},
): Promise<void> {
  const own = new Set([item.key, ...(item.aliases ?? [])]);
  const others = (found.client_ids ?? []).filter((key) => !own.has(key));
  const unkeyed = options.unkeyed === 'refuse' && found.client_ids?.length === 0;
  if (others.length === 0 && !unkeyed) return;
  const rowName = fullName(item.params[FIRST], item.params[LAST]);
  const accountName = fullName(found.first_name, found.last_name);
  const holder = holderInThisRun(found, item, context);
  if (holder !== undefined)
    throw anothersAccountError(
      found,
      item,
      `is the account of key "${holder}", which has its own row in this run`,
    );
  if (namesAgree(rowName, accountName)) return;
  const refuse = (whose: string): EvsyncError => anothersAccountError(found, item, `(${how}) ${whose}`);
  for (const other of others) {
    const mapped = (await context.ids.get('user', other)) === found.id;
    if (mapped || context.inSource?.('user', other) === true)
      throw refuse(`is the account of key "${other}"`);
  }
  if (options.unkeyed !== 'refuse') return;
  throw refuse(
    others.length === 0
      ? 'has no client_id (an account made on the platform, or by another tool)'
      : `is the account of ${others.map((key) => `"${key}"`).join(', ')}, a client_id no source of this ledger has (an account made by another tool)`,
  );
}

/**
 * A key of `found`, not the row's own, that has its own row in this run, when the row's
 * name and the account's are not alike word for word: no re-key of the row's person, as the
 * source tells them apart ("Ann Jones" is not "Anna Jones", whose ticket is in the same
 * order). Undefined when there is none.
 */
export function holderInThisRun(
  found: PlatformUser,
  item: PlannedIntent,
  context: Pick<ProcessorContext, 'inSource'>,
): string | undefined {
  const own = new Set([item.key, ...(item.aliases ?? [])]);
  const holder = (found.client_ids ?? []).find(
    (key) => !own.has(key) && context.inSource?.('user', key) === true,
  );
  if (holder === undefined) return undefined;
  const rowName = fullName(item.params[FIRST], item.params[LAST]);
  return namesAlike(rowName, fullName(found.first_name, found.last_name)) ? undefined : holder;
}

function anothersAccountError(found: PlatformUser, item: PlannedIntent, whose: string): EvsyncError {
  const rowName = fullName(item.params[FIRST], item.params[LAST]);
  const accountName = fullName(found.first_name, found.last_name);
  return new EvsyncError(
    `platform user ${found.id} "${accountName}" ${whose}, and this row's key "${item.key}" is "${rowName}": ` +
      `one person's account is never given to another, so nothing was written to it. If they are one person, make the names agree in the source; if not, give "${item.key}" their own e-mail`,
    { code: CODE.EVSYNC_ACCOUNT_OF_ANOTHER },
  );
}

/**
 * A 203 attaches the platform-wide user that has the row's e-mail or its client_id. A user
 * attached by the client_id alone is another conference's person under the same key
 * (`p3` there and here): when its name and the row's disagree, nothing is written to it.
 * The user's JSON has no e-mail, so a look-up by the row's e-mail tells which it was: the
 * same user is the person's own login, whatever name another conference knows them by.
 */
export async function refuseOtherConferencesPerson(
  attached: PlatformUser,
  item: PlannedIntent,
  context: ProcessorContext,
  email: string | undefined,
): Promise<void> {
  const rowName = fullName(item.params[FIRST], item.params[LAST]);
  const accountName = fullName(attached.first_name, attached.last_name);
  if (namesAgree(rowName, accountName)) return;
  const byEmail = email === undefined ? undefined : await context.platform.users.getByEmail(email);
  if (byEmail?.id === attached.id) return;
  throw new EvsyncError(
    `platform user ${attached.id} "${accountName}" was attached by the client_id "${item.key}" (203), and this row is "${rowName}" with another e-mail: ` +
      `${await whoHoldsTheKey(item, context, accountName)}, so nothing was written to their account. Give this row a client_id of its own, or make the names agree if they are one person`,
    { code: CODE.EVSYNC_ACCOUNT_OF_ANOTHER },
  );
}

/**
 * Who holds a key a 203 attached by: this conference's own earlier person when the ledger
 * last sent the key under that account's name (a person a mirror delete removed, or one
 * taken out of the conference on the platform); otherwise a person the platform has under
 * the key, whom the ledger does not know here: another conference's, or one whose results
 * retention pruned. The platform keeps a client_id on the account it first made for it
 * (spec §4.2 rule 2), so the 203 has put them in this conference.
 */
async function whoHoldsTheKey(
  item: PlannedIntent,
  context: ProcessorContext,
  accountName: string,
): Promise<string> {
  const last = (await context.lastSent?.(item.key)) ?? (await context.lastSentBeforeRemoval?.(item.key));
  const was = last === undefined ? undefined : personOfParams(last, context.platform.vendor);
  if (was !== undefined && namesAgree(was.name, accountName))
    return (
      `the key's earlier person in this conference holds it (last synced as "${was.name}" <${was.email}>, out of the conference since); ` +
      'the platform keeps the client_id on their account and the create added them to this conference again'
    );
  return "the platform has another person under the key (another conference's, or one this ledger no longer knows), and the create added them to this conference";
}

/**
 * An update of a key whose row now names another person: its name and its e-mail both
 * differ from what the ledger last sent for the key (a ticket handed on, or a list keyed by
 * the rows' order, as pretix's `<order>-<place>` without the ticket secret, re-sorted by
 * name). Sent, it would turn one person's platform account into another's, schedule and
 * login with it; the row fails instead, naming both (docs/sync-engine.md, "Who is who").
 * Who is another person is `anotherPerson`'s to say: under one e-mail (an order's), names
 * with no word in common are two people too.
 */
export async function refuseKeyOfAnother(
  item: PlannedIntent,
  context: ProcessorContext,
  keys: readonly string[] = [item.key],
): Promise<void> {
  // A merged person's other client_ids too: each is an account the update writes through.
  // One of the same account as a key checked before is not: the person was sent under the
  // first key, and another key's own record may be of the night before the merge.
  const checked = new Set<number>();
  for (const key of keys) {
    const id = await context.ids.get('user', key);
    if (id !== undefined && checked.has(id)) continue;
    const last = await context.lastSent?.(key);
    // Nothing synced to the key's account: a merged person's other key whose user a run
    // deleted keeps that account in the id map, and the PUT's 404 would create.
    if (last === undefined) {
      await refuseKeyOfRemovedPerson(item, context, key, true);
      continue;
    }
    refuseIfAnother(item, key, last, context.platform.vendor);
    if (id !== undefined) checked.add(id);
  }
}

/**
 * A create under a key that a run removed from this conference since (a mirror delete: a
 * ticket unassigned, then assigned to someone else under the same reference). The platform
 * keeps the client_id on the account it first made for it, so the create would answer 203
 * with that person's account and put them back in the conference (spec §4.2 rule 2). When
 * the row names another person than the one the ledger last sent under the key
 * (`anotherPerson`), the row fails before any call (docs/sync-engine.md, "Who is who"). Only
 * the row's own key: the create sends no other, and a merged person's other keys are added
 * by a PUT the platform refuses for another user's client_id.
 */
export async function refuseKeyOfRemovedPerson(
  item: PlannedIntent,
  context: ProcessorContext,
  /** The row's own key, or a merged person's other client_id (added by a PUT, which the platform refuses for another's). */
  key: string = item.key,
  /** The id map has the key: its account may be one a run deleted under another key. */
  hasId = false,
): Promise<void> {
  const last =
    (await context.lastSentBeforeRemoval?.(key)) ??
    (hasId ? await context.lastSentToDeletedAccount?.(key) : undefined);
  if (last === undefined) return;
  const was = personOfParams(last, context.platform.vendor);
  const now = personOfParams(item.params, context.platform.vendor);
  if (!anotherPerson(was, now)) return;
  const where = item.origin === null ? '' : `${describeOrigin(item.origin)} of ${item.origin.source}: `;
  const merged = key === item.key ? '' : ` (merged into this row's person, client_id "${item.key}")`;
  // Held: the key's check-ins and links would land on that account once its person is back.
  throw new KeyOfAnotherPersonError(
    `${where}client_id "${key}"${merged} was "${was.name}" <${was.email}> when last synced, and a run has removed that person from this conference since; ` +
      `this row makes it "${now.name}" <${now.email}>. The platform keeps the client_id on the account of "${was.name}", so a create would put them back in this conference (203), ` +
      'not make one for this row: nothing was sent. Give this person a client_id of their own (Tito: a new ticket, not the old one re-assigned); ' +
      'see docs/sync-engine.md, "Who is who"',
    key,
    CODE.EVSYNC_KEY_OF_REMOVED_PERSON,
  );
}

/** Who a user's params name: its full name and e-mail, as the identity rule compares them. */
export function personOfParams(params: FlatParams, vendor: string): NamedPerson {
  return { name: fullName(params[FIRST], params[LAST]), email: params[emailParam(vendor)]?.trim() ?? '' };
}

function refuseIfAnother(item: PlannedIntent, key: string, last: FlatParams, vendor: string): void {
  const was = personOfParams(last, vendor);
  const now = personOfParams(item.params, vendor);
  if (!anotherPerson(was, now)) return;
  const { name: wasName, email: wasEmail } = was;
  const { name: nowName, email: nowEmail } = now;
  const merged = key === item.key ? '' : ` (merged into this row's person, client_id "${item.key}")`;
  // One e-mail under both names: an order's or a household's, which says nothing of who holds the ticket.
  const shared = personKey(wasEmail) === personKey(nowEmail);
  throw new KeyOfAnotherPersonError(
    `client_id "${key}"${merged} was "${wasName}" <${wasEmail}> when last synced, and this row makes it "${nowName}" <${nowEmail}>: ` +
      (shared
        ? 'another person under the same key and a shared e-mail (an order’s tickets that follow the rows’ order, or a ticket handed on within the order)? Nothing was written to the account. ' +
          'If it is another person, give them a client_id of their own (pretix: export the Secret column) and, best, an e-mail of their own; if it is the same person renamed, change the first name in this run and the last name in the next'
        : 'another person under the same key (a ticket handed on, or keys that follow the rows’ order)? Nothing was written to the account. ' +
          'If it is another person, give them a client_id of their own; if it is the same person with a new name and a new e-mail, change one in this run and the other in the next'),
    key,
  );
}
