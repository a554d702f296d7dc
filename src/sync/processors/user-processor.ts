import type { PlannedIntent } from '../../model/planned-intent.js';
import type { FlatParams } from '../../model/params.js';
import type { PlatformUser } from '../../platform/response-schemas.js';
import {
  clearingParams,
  withoutBlanks,
  type ClearingParams,
} from '../../platform/write-params/clear-params.js';
import { emailParam, passwordParam } from '../../platform/vendor.js';
import { paramsApart, updateKeepingAddress } from './kept-address.js';
import { messageOf } from '../../errors/evsync-error.js';
import type { CallCounter, ProcessOutcome } from './process-outcome.js';
import { isAlreadyThere, isOutcomeUnknown, isStatus } from './process-outcome.js';
import type { Processor, ProcessorContext } from './processor.js';
import {
  refuseAnothersAccount,
  refuseKeyOfAnother,
  refuseKeyOfRemovedPerson,
  refuseOtherConferencesPerson,
} from './account-owner.js';
import { clearingNote, isRemoval, MAX_CREATE_TRIES, retireShared, withoutClientId } from './processor.js';

/**
 * Users (spec §4.2 and docs/design.md, "Rules of the platform"):
 * - create → 200 `created`; 203 → the details were ignored, so PUT them (minus any
 *   password, rule 5) → `attached`;
 * - 422 "already taken", or a create whose answer was lost → look the user up by e-mail
 *   and update it, so that re-running never creates a duplicate;
 * - a user the id map knows is updated by its client_id, not by the platform id the ledger
 *   holds: the platform says who holds the key. A conference reset or restored from a
 *   backup gives its ids out again, and the held id may be another person's account by
 *   then (docs/sync-engine.md, "Who is who"). A 404 means nobody holds the key here (the
 *   user left this conference, or the platform forgot them), and the user is created again.
 */
export const processUser: Processor = async (item, context, counter) => {
  if (isRemoval(item)) return removeUser(item, context, counter);
  const atOnce = knownKeysAtOnce(item, context);
  const known = atOnce ?? (await knownKeys(item, context));
  if (known.length > 0) await refuseKeyOfAnother(item, context, known);
  // A merged person's keys in turn: an account made under one key gets the others when it
  // is updated (`remember`), so until then only that one finds it.
  for (const key of known) {
    try {
      // Fields the source cleared are in the params empty (plan/cleared-fields.ts).
      const clearing = clearingParams(updateParams(item.params, context.platform.vendor));
      const { user, kept } = await updateKeepingAddress(key, item, clearing.params, context, counter);
      const note = [clearingNote(clearing).message, kept].filter((part) => part !== undefined);
      return remember(
        item,
        context,
        counter.done('updated', {
          platformId: user.id,
          ...(note.length > 0 ? { message: note.join('; ') } : {}),
        }),
        user,
      );
    } catch (error) {
      if (!isStatus(error, 404)) throw error;
    }
  }
  if (known.length > 0) {
    context.ids.delete('user', item.key);
    for (const alias of item.aliases ?? []) context.ids.delete('user', alias);
  }
  return createUser(item, context, counter);
};

/**
 * {@link knownKeys} when the id cache can answer without the ledger (`IdCache.peek`);
 * `undefined` when the ledger must be asked.
 */
function knownKeysAtOnce(item: PlannedIntent, context: ProcessorContext): string[] | undefined {
  const keys: string[] = [];
  for (const key of [item.key, ...(item.aliases ?? [])]) {
    const id = context.ids.peek('user', key);
    if (id === undefined) return undefined;
    if (id !== null) keys.push(key);
  }
  return keys;
}

/** The user's keys the id map knows: its own, then, for a merged user, its other client_ids. */
async function knownKeys(item: PlannedIntent, context: ProcessorContext): Promise<string[]> {
  const keys: string[] = [];
  for (const key of [item.key, ...(item.aliases ?? [])])
    if ((await context.ids.get('user', key)) !== undefined) keys.push(key);
  return keys;
}

async function createUser(
  item: PlannedIntent,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<ProcessOutcome> {
  // A create sends no empty value: there is nothing on the platform to clear yet, and a user
  // attached by 203 keeps what another conference gave it. One copy of the params.
  // Before the POST: a 203 for a key a mirror delete removed would put its earlier person back,
  // and a merged person's other key that is such a key is that person's account's (the PUT
  // adding it is refused). Keys with an id were checked by `refuseKeyOfAnother`.
  await refuseKeyOfRemovedPerson(item, context);
  for (const alias of item.aliases ?? []) await refuseKeyOfRemovedPerson(item, context, alias);
  const params = withoutBlanks(item.params, { client_id: item.key });
  const email = params[emailParam(context.platform.vendor)];
  for (let tries = 1; ; tries += 1) {
    try {
      const { outcome, user } = await counter.call(() => context.platform.users.create(params));
      if (outcome === 'created')
        return remember(
          item,
          context,
          counter.done('created', { platformId: user.id, httpStatus: 200 }),
          user,
        );
      // Attached: a user the platform already had, who may be another key's person here.
      await refuseAnothersAccount(user, item, context, 'attached by the create, 203');
      await refuseOtherConferencesPerson(user, item, context, email);
      const updated = await counter.call(() =>
        // The same details as the create's, and the key if the platform did not keep it:
        // later updates name the user by it.
        context.platform.users.update(
          user.id,
          withKey(user, item, updateParams(params, context.platform.vendor)),
        ),
      );
      // The PUT's answer, which lists the key the PUT gave: `remember` adds no key twice.
      return remember(
        item,
        context,
        counter.done('attached', { platformId: user.id, httpStatus: 203 }),
        updated,
      );
    } catch (error) {
      const lost = isOutcomeUnknown(error);
      if (!lost && !isAlreadyThere(error)) throw error;
      if (email === undefined) throw error;
      const found = await counter.call(() => context.platform.users.getByEmail(email));
      if (!found) {
        // The lost create never arrived: sending it again cannot duplicate anything.
        if (lost && tries < MAX_CREATE_TRIES) continue;
        throw error;
      }
      // Another holder of the order's e-mail has it: this one is created under its plus-address.
      const apart = lost ? undefined : paramsApart(found, item, params, context);
      if (apart !== undefined) return createApart(item, apart, email, context, counter);
      await refuseAnothersAccount(found, item, context, `found by the e-mail ${email}`, {
        unkeyed: 'refuse',
      });
      const cutOff = !lost && (await madeByAnUnrecordedCreate(found, item, context));
      const { user, clearing } = await updateFound(found, item, context, counter);
      const note = lost
        ? 'the answer to the create was lost; found the user by e-mail and updated it'
        : cutOff
          ? 'created before the run was cut off, its result not recorded; found the user by e-mail with this client_id and updated it'
          : 'the user was already in this conference; found by e-mail and updated';
      const cleared = clearingNote(clearing).message;
      return remember(
        item,
        context,
        counter.done(lost || cutOff ? 'created' : 'updated', {
          platformId: user.id,
          message: cleared ? `${note}; ${cleared}` : note,
        }),
        user,
      );
    }
  }
}

/** {@link createUser} again with `params` (`paramsApart`), its result saying why. */
async function createApart(
  item: PlannedIntent,
  params: FlatParams,
  plain: string,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<ProcessOutcome> {
  const { plusOnShare: _once, ...apart } = item;
  const outcome = await createUser({ ...apart, params }, context, counter);
  const note =
    `created with ${params[emailParam(context.platform.vendor)]}: ${plain} is the account of another holder of the order, ` +
    'whose row this run has (on_shared_email: suffix, docs/mapping.md, "Shared e-mails")';
  return { ...outcome, message: outcome.message ? `${note}; ${outcome.message}` : note };
}

/**
 * Whether a user found by e-mail holds this row's key while the ledger has nothing synced
 * under it: the account of a create of this key whose result was never recorded (a run
 * killed after the platform answered, then resumed), which the report counts as created.
 */
async function madeByAnUnrecordedCreate(
  found: PlatformUser,
  item: PlannedIntent,
  context: ProcessorContext,
): Promise<boolean> {
  if (context.lastSent === undefined || !(found.client_ids ?? []).includes(item.key)) return false;
  return (await context.lastSent(item.key)) === undefined;
}

/**
 * A user found by e-mail was made by someone else (or by a create whose answer was lost):
 * the row's client_id goes with the update, which adds it to the user (a client_id beside
 * an id in the path is one more client id, docs/design.md, "our conventions"), so that the speaker links,
 * schedules and RSVPs that name the user by this key find it.
 */
async function updateFound(
  found: PlatformUser,
  item: PlannedIntent,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<{ user: PlatformUser; clearing: ClearingParams }> {
  const clearing = clearingParams(updateParams(item.params, context.platform.vendor));
  const params = withKey(found, item, clearing.params);
  return { user: await counter.call(() => context.platform.users.update(found.id, params)), clearing };
}

/**
 * `params` plus the row's client_id when the user lacks it: beside an id in the path it is
 * one more client id of the user (docs/design.md, "our conventions").
 */
function withKey(user: PlatformUser, item: PlannedIntent, params: FlatParams): FlatParams {
  return (user.client_ids ?? []).includes(item.key) ? params : { ...params, client_id: item.key };
}

async function removeUser(
  item: PlannedIntent,
  context: ProcessorContext,
  counter: CallCounter,
): Promise<ProcessOutcome> {
  const id = await context.ids.get('user', item.key);
  const retired = await retireShared(item, 'user', id, context, counter);
  if (retired) return retired;
  try {
    // By the key, as an update: the id the ledger holds may be another person's by now.
    await counter.call(() => context.platform.users.delete({ clientId: item.key }));
  } catch (error) {
    // Already gone from this conference: the delete has the effect asked for.
    if (!isStatus(error, 404)) throw error;
  }
  context.ids.delete('user', item.key);
  // A merged person's other client_ids, which named the same account (`planMirrorDeletes`).
  for (const alias of item.aliases ?? []) context.ids.delete('user', alias);
  return counter.done('deleted', { platformId: id ?? null });
}

/** Same details, minus any password (§4.2 rule 5) and the client_id (the path names the user). */
export function updateParams(params: FlatParams, vendor: string): FlatParams {
  const copy = withoutClientId(params);
  delete copy[passwordParam(vendor)];
  for (const name of Object.keys(copy)) {
    if (/\[password(_confirmation)?\]$/.test(name)) delete copy[name];
  }
  return copy;
}

/**
 * Keeps the user's id for this run, under every client_id of a merged user. A merged user's
 * other client_ids are added to the platform user (one `PUT` each that it lacks, a
 * client_id beside an id in the path being one more client id): a schedule or RSVP names
 * its user by client_id (`user[client_id]`), whichever step's row it came from.
 */
async function remember(
  item: PlannedIntent,
  context: ProcessorContext,
  outcome: ProcessOutcome,
  user?: PlatformUser,
): Promise<ProcessOutcome> {
  const id = outcome.platformId;
  if (typeof id !== 'number') return outcome;
  context.ids.set('user', item.key, id);
  // The row's own key too, when an account that lists its keys lacks it (a merged person
  // updated by another of their keys): updates name the user by it.
  const lacksOwn = user?.client_ids !== undefined && !user.client_ids.includes(item.key);
  if (item.aliases === undefined && !lacksOwn) return outcome;
  const has = new Set(user?.client_ids ?? []);
  const refused: Array<{ alias: string; why: string }> = [];
  let added = 0;
  for (const alias of lacksOwn ? [item.key, ...(item.aliases ?? [])] : (item.aliases ?? [])) {
    if (!has.has(alias)) {
      try {
        await context.platform.users.update(id, { client_id: alias });
        added += 1;
      } catch (error) {
        // 422: the client_id belongs to another user; anything else ends the intent as usual.
        if (!isStatus(error, 422)) throw error;
        refused.push({ alias, why: messageOf(error) });
        continue;
      }
    }
    context.ids.set('user', alias, id);
  }
  const counted = { ...outcome, attempts: outcome.attempts + added };
  if (refused.length === 0) return counted;
  const note = `the platform refused these client_ids of the merged person: ${refused.map(({ alias, why }) => `${alias} (${why})`).join('; ')}`;
  // Another user has them: not this account's in the id map, nor its dependents' parent.
  const held = (item.aliases ?? []).filter((alias) => !refused.some((one) => one.alias === alias));
  return { ...counted, aliases: held, message: outcome.message ? `${outcome.message}; ${note}` : note };
}
