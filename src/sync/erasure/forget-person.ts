import { hostname, userInfo } from 'node:os';
import { CODE } from '../../errors/codes.js';
import { EvsyncError } from '../../errors/evsync-error.js';
import type { LedgerPerson, ScrubTally, TombstoneRecord } from '../../ledger/ledger-erasure.js';
import { keyPart, splitLinkKey } from '../../model/link-key.js';
import type { Ledger } from '../../ledger/ledger.js';
import { erasureHash, erasureMarker, type ErasedIdentifier } from '../../model/erasure.js';
import { personKey } from '../../model/person.js';
import { PlatformHttpError } from '../../platform/platform-error.js';
import type { PlatformUser } from '../../platform/response-schemas.js';
import { emailParam } from '../../platform/vendor.js';

/** Who to forget, and how (docs/privacy.md, "evsync forget"). */
export interface ForgetRequest {
  emails: readonly string[];
  clientIds: readonly string[];
  reason: string | undefined;
  /** Who ran it: kept with the tombstone. */
  by: string;
  dryRun: boolean;
}

/** The few platform calls an erasure makes. */
export interface ForgetPlatform {
  vendor: string;
  users: {
    getByEmail(email: string): Promise<PlatformUser | undefined>;
    get(ref: { id: number }): Promise<PlatformUser>;
    delete(ref: { id: number }): Promise<void>;
  };
}

export interface ForgetDeps {
  /** The ledger seen from the conference the platform client writes to. */
  ledger: Pick<Ledger, 'erasure' | 'conference' | 'kind' | 'listRuns' | 'processGone'>;
  platform: ForgetPlatform;
}

export interface ForgetOutcome {
  dryRun: boolean;
  /**
   * What the ledger knew of the person: counts only, never the values. `otherPeople`: people
   * whose rows use a client_id of the person's (a ticket handed on, a key reused), not forgotten.
   */
  found: { clientIds: number; emails: number; otherPeople: number };
  /** Platform users removed from the conference (or that would be), by id. */
  platformRemoved: number[];
  /** Platform users already gone (404). */
  platformGone: number[];
  scrubbed: ScrubTally;
  tombstone: TombstoneRecord | undefined;
  /** Whether an intent's key names the person (a queue's jobs are found by it); never printed. */
  namesKey: (kind: string, key: string) => boolean;
}

/**
 * Who ran a forget or an undo, kept with the tombstone: this process's account and host. A
 * container's uid may have no passwd entry (`userInfo` throws): the forget must not fail for it.
 */
export function erasedBy(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = `uid ${process.getuid?.() ?? '?'}`;
  }
  return `${user}@${hostname()}`;
}

/** An outcome as `forget --json` and the dashboard's JSON answer it: counts and ids, no value. */
export function forgetOutcomeJson(outcome: Omit<ForgetOutcome, 'namesKey'>): Record<string, unknown> {
  return {
    dryRun: outcome.dryRun,
    found: outcome.found,
    platformRemoved: outcome.platformRemoved,
    platformGone: outcome.platformGone,
    ledger: outcome.scrubbed,
    tombstone: outcome.tombstone?.id ?? null,
  };
}

/** Thrown when the ledger and the platform disagree on who the person is: nothing is removed. */
export class ErasureIdentityError extends EvsyncError {
  constructor(message: string) {
    super(message, { code: CODE.EVSYNC_ERASURE_IDENTITY, retryable: false });
  }
}

const FIRST = 'user[first_name]';
const LAST = 'user[last_name]';
const ERASED_EMAIL = 'erased@erased.invalid';

/**
 * Forgets a person in one conference: removes their platform user (and with it, as the
 * platform does, their speaker links, schedule and contacts), replaces every trace the
 * ledger keeps with markers, and records a tombstone of keyed hashes that later runs obey.
 * The platform is asked first who the person is: where it disagrees with the ledger,
 * nothing is removed (docs/privacy.md).
 */
export async function forgetPerson(deps: ForgetDeps, request: ForgetRequest): Promise<ForgetOutcome> {
  const erasure = deps.ledger.erasure();
  const conferenceId = deps.ledger.conference?.id ?? 0;
  if (!request.dryRun) await refuseRunInFlight(deps.ledger, conferenceId);
  const key = await erasure.key();
  const person = await erasure.findPerson(conferenceId, {
    emails: request.emails.map((email) => personKey(email) ?? '').filter((email) => email !== ''),
    clientIds: request.clientIds,
    emailParam: emailParam(deps.platform.vendor),
    firstNameParam: FIRST,
    lastNameParam: LAST,
  });
  refuseKeyOfTwo(request, person);
  const targets = await platformTargets(deps.platform, person.emails, person.platformIds);
  const platformRemoved: number[] = [];
  const platformGone: number[] = [];
  for (const id of targets) {
    if (request.dryRun) {
      platformRemoved.push(id);
      continue;
    }
    try {
      await deps.platform.users.delete({ id });
      platformRemoved.push(id);
    } catch (error) {
      if (!(error instanceof PlatformHttpError && error.status === 404)) throw error;
      platformGone.push(id);
    }
  }
  const marker = (kind: string, ledgerKey: string): string => erasureMarker(key, kind, ledgerKey);
  const parts = userParts(person);
  // A key whose account is another person's names that person in links and quotes.
  const ofAnother = new Set(person.keysOfAnother);
  const ownKeys = person.clientIds.filter((clientId) => !ofAnother.has(clientId));
  const scrubbed = await erasure.scrub(
    conferenceId,
    {
      clientIds: person.clientIds,
      userParts: parts,
      emailParam: emailParam(deps.platform.vendor),
      otherEmails: person.otherEmails,
      keysOfAnother: person.keysOfAnother,
      texts: [
        // Quoted, as params and messages quote them: a short client_id is no word of other rows.
        ...ownKeys.map((clientId) => ({
          text: JSON.stringify(clientId),
          replacement: JSON.stringify(marker('user', clientId)),
        })),
        ...person.rawEmails.map((email) => ({ text: email, replacement: ERASED_EMAIL })),
        ...person.names.map((name) => ({ text: JSON.stringify(name), replacement: '"(erased)"' })),
      ],
      markerOf: marker,
    },
    // The embedded ledger's folder is what is backed up and copied: its files must not keep them.
    { dryRun: request.dryRun, compact: deps.ledger.kind === 'embedded' },
  );
  // A key whose account is another person's (a ticket the person was handed and refused) is
  // that person's platform key: tombstoned, it would suppress their links in every job and
  // fail their row under it every night. The person's e-mails keep them out; their own shared
  // key is kept, so that another row under it fails loudly (docs/privacy.md, "Later runs").
  const hashes = identifierHashes(key, { emails: person.emails, clientIds: ownKeys });
  const tombstone = request.dryRun
    ? undefined
    : await erasure.addTombstone({
        conferenceId,
        hashes,
        reason: request.reason ?? null,
        erasedBy: request.by,
        removed: { platform_users: platformRemoved.length, ...scrubbed },
      });
  const partSet = new Set(parts);
  const clientIds = new Set(ownKeys);
  return {
    namesKey: (kind, key) =>
      kind === 'user'
        ? clientIds.has(key)
        : kind !== 'event' && splitLinkKey(key).some((part) => partSet.has(part)),
    dryRun: request.dryRun,
    found: {
      clientIds: person.clientIds.length,
      emails: person.emails.length,
      otherPeople: person.otherPeople,
    },
    platformRemoved,
    platformGone,
    scrubbed,
    tombstone,
  };
}

/**
 * A person named by client_id alone, whose key named two people in the ledger (a ticket
 * handed on, a key reused): which of them to forget is not the ledger's to guess. Nothing is
 * removed; the operator names the person by e-mail.
 */
function refuseKeyOfTwo(request: ForgetRequest, person: LedgerPerson): void {
  if (request.emails.length > 0) return;
  const named = new Set(request.clientIds);
  const shared = person.sharedKeys.filter((clientId) => named.has(clientId));
  if (shared.length === 0) return;
  throw new ErasureIdentityError(
    `client_id "${shared.join('", "')}" has named more than one person in this conference (a ticket handed on, a key reused): ` +
      'which of them to forget is not clear. Nothing was removed; name the person with --email (evsync report shows the rows).',
  );
}

/**
 * The platform users to remove: the one each e-mail names, and the ids the ledger maps the
 * client_ids to, once each. Where the two disagree (the e-mail names another user than the
 * ledger's id, or the user of that id holds none of the person's client_ids), the ledger's
 * user may be another person now: the erasure stops before removing anything.
 */
async function platformTargets(
  platform: ForgetPlatform,
  emails: readonly string[],
  known: ReadonlyMap<string, number>,
): Promise<number[]> {
  const byEmail = new Set<number>();
  for (const email of emails) {
    const user = await platform.users.getByEmail(email);
    if (user !== undefined) byEmail.add(user.id);
  }
  const ids = new Set(byEmail);
  const clientIds = new Set(known.keys());
  for (const [clientId, id] of known) {
    if (ids.has(id)) continue;
    if (byEmail.size > 0)
      throw new ErasureIdentityError(
        `the ledger maps client_id "${clientId}" to platform user ${id}, but the person's e-mail names platform user ${[...byEmail].join(', ')}: ` +
          'one of them may be another person. Nothing was removed; check both users on the platform.',
      );
    let user: PlatformUser;
    try {
      user = await platform.users.get({ id });
    } catch (error) {
      if (error instanceof PlatformHttpError && error.status === 404) continue;
      throw error;
    }
    if (user.client_ids !== undefined && !user.client_ids.some((theirs) => clientIds.has(theirs)))
      throw new ErasureIdentityError(
        `the ledger maps client_id "${clientId}" to platform user ${id}, but that user holds none of the person's client_ids: ` +
          'it may be another person now. Nothing was removed; check the user on the platform.',
      );
    ids.add(id);
  }
  return [...ids];
}

/** Lifts the conference's tombstones naming any of these identifiers (`forget --undo`). */
export async function liftErasure(
  deps: Pick<ForgetDeps, 'ledger'>,
  request: Pick<ForgetRequest, 'emails' | 'clientIds' | 'by'>,
): Promise<TombstoneRecord[]> {
  const erasure = deps.ledger.erasure();
  const key = await erasure.key();
  const hashes = identifierHashes(key, request);
  return erasure.lift(deps.ledger.conference?.id ?? 0, hashes, request.by);
}

/** The keyed hashes a tombstone holds for these e-mails and client_ids, once each. */
function identifierHashes(
  key: Buffer,
  person: { emails: readonly string[]; clientIds: readonly string[] },
): string[] {
  const identifiers: ErasedIdentifier[] = [
    ...person.emails.map((value) => ({ kind: 'email' as const, value })),
    ...person.clientIds.map((value) => ({ kind: 'client_id' as const, value })),
  ];
  return [...new Set(identifiers.map((id) => erasureHash(key, id)).filter((hash) => hash !== undefined))];
}

/**
 * Every way a link key names the person (model/link-key.ts; a contact's target is `user:ID`).
 * Not a key whose account is another person's: its links are theirs.
 */
function userParts(person: LedgerPerson): string[] {
  const ofAnother = new Set(person.keysOfAnother);
  return [
    ...person.clientIds.filter((clientId) => !ofAnother.has(clientId)).map((clientId) => keyPart(clientId)),
    ...[...person.platformIds.values()].flatMap((id) => [`#${id}`, `user:${id}`]),
    ...person.rawEmails.map((email) => `email:${keyPart(email)}`),
  ];
}

/**
 * A run of the conference being sent holds its planned rows in memory: forgetting a person
 * meanwhile, it would create them again after the erasure, and the ledger would hold them
 * again. So `forget` waits for no run, and refuses while one is in flight (a `running` run
 * whose process is alive); a run cut off (`processGone`) sends nothing until resumed, and a
 * resume reads the scrubbed plan.
 */
async function refuseRunInFlight(
  ledger: Pick<Ledger, 'listRuns' | 'processGone'>,
  conferenceId: number,
): Promise<void> {
  const running = await ledger.listRuns(50, {
    statuses: ['running'],
    ...(conferenceId === 0 ? {} : { conferenceId }),
  });
  for (const run of running) {
    if (await ledger.processGone(run)) continue;
    throw new EvsyncError(
      `Run ${run.id} of job ${run.jobName} is being sent in this conference: it could send the person again after the erasure, so nothing was removed. ` +
        'Run evsync forget again once it has ended (evsync status), or stop it first (Ctrl-C): a resume after the erasure does not send the person.',
      { code: CODE.EVSYNC_ERASURE_RUN_IN_FLIGHT, retryable: false },
    );
  }
}
