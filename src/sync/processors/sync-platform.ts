import type { CheckIn, PlatformEvent, PlatformUser, ScheduleEntry } from '../../platform/response-schemas.js';
import type { FlatParams } from '../../model/params.js';
import type { MemberRef } from '../../platform/member-ref.js';
import type { PlatformAck } from '../../platform/platform-caller.js';
import type { UserCreateResult } from '../../platform/users-api.js';
import type { ListOptions } from '../../platform/paginate.js';

/**
 * The part of `PlatformClient` the processors use. `PlatformClient` satisfies it as is;
 * unit tests pass in-memory fakes.
 */
export interface SyncPlatform {
  readonly vendor: string;
  /** The conference written to; fakes without it share one unnamed conference. */
  readonly baseUrl?: string;
  readonly keyId?: number;
  /**
   * A key derived from the signing key for one purpose (`PlatformClient.deriveKey`): the
   * key of the change hashes of params with a secret. Fakes without it hash such params
   * to a value that never matches, so they are always sent.
   */
  deriveKey?(purpose: string): Buffer;
  /**
   * `/signature_test` (spec §5): the one signed read a run makes before it says `completed`
   * when nothing it sent proved the platform up (`execute/platform-check.ts`). Fakes without
   * it are never checked.
   */
  signatureTest?(): Promise<{ valid: boolean | undefined; problem: string | undefined }>;
  readonly users: {
    create(params: FlatParams): Promise<UserCreateResult>;
    update(ref: MemberRef, params: FlatParams): Promise<PlatformUser>;
    getByEmail(email: string): Promise<PlatformUser | undefined>;
    delete(ref: MemberRef): Promise<void>;
    /** A user by id or client_id (404 when none): a merge confirms a shared account by it (`sharedAccountsOf`). */
    get?(ref: MemberRef): Promise<PlatformUser>;
  };
  readonly events: {
    create(params: FlatParams): Promise<PlatformEvent>;
    update(ref: MemberRef, params: FlatParams): Promise<PlatformEvent>;
    get(ref: MemberRef): Promise<PlatformEvent>;
    list(options?: ListOptions): AsyncIterable<PlatformEvent>;
    delete(ref: MemberRef): Promise<void>;
    rsvpAdd(event: MemberRef, params: FlatParams): Promise<PlatformAck>;
    rsvpRemove(event: MemberRef, params: FlatParams): Promise<PlatformAck>;
    replaceSchedule(params: FlatParams): Promise<ScheduleEntry[]>;
  };
  readonly speakers: {
    add(event: MemberRef, params: FlatParams): Promise<PlatformAck>;
    remove(event: MemberRef, params: FlatParams): Promise<PlatformAck>;
  };
  readonly contacts: {
    add(params: FlatParams): Promise<PlatformAck>;
    remove(params: FlatParams): Promise<PlatformAck>;
  };
  readonly checkIns: {
    create(params: FlatParams): Promise<CheckIn>;
    /**
     * `GET /check_in/my`, newest first: the key owner's own check-ins, the only ones §4.1
     * lets a caller list back (a lost answer of one is looked for there).
     */
    my?(options?: ListOptions): AsyncIterable<CheckIn>;
  };
}
