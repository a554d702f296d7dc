import { CODE } from '../errors/codes.js';
import { EvsyncError } from '../errors/evsync-error.js';
import type { MemberRef } from './member-ref.js';
import { memberTarget } from './member-ref.js';
import type { ListOptions } from './paginate.js';
import { paginate } from './paginate.js';
import type { FlatParams } from '../model/params.js';
import type { PlatformCaller } from './platform-caller.js';
import { parseBody } from './platform-caller.js';
import { PlatformHttpError } from './platform-error.js';
import type { PlatformRequest } from './platform-request.js';
import type { PlatformUser } from './response-schemas.js';
import { platformUserSchema } from './response-schemas.js';
import { emailParam } from './vendor.js';

/** 200 created the user; 203 attached an existing platform user and ignored the details (§4.2). */
export interface UserCreateResult {
  outcome: 'created' | 'attached';
  user: PlatformUser;
}

export interface UserListOptions extends ListOptions {
  /** Search terms. */
  terms?: string;
}

export interface UserUpdateOptions {
  /** @defaultValue false */
  allowPasswordChange?: boolean;
}

/** `user[<vendor>_auth_attributes][password]` and its confirmation, whatever the vendor word. */
const PASSWORD_PARAM = /^user\[[a-z0-9_]+_auth_attributes\]\[password(_confirmation)?\]$/;

/** A PUT carried a password param (its value is never shown). */
export class PasswordInUpdateError extends EvsyncError {
  override readonly name = 'PasswordInUpdateError';
  constructor(param: string) {
    super(
      `PUT /user/member: refused to send ${param}; in an update it would change the stored password (spec §4.2 rule 5). Leave it out, or pass allowPasswordChange.`,
      { code: CODE.EVSYNC_PLATFORM_PASSWORD_IN_UPDATE, retryable: false },
    );
  }
}

/** §4.2 users. Write params are the spec's bracketed names (`user[first_name]`, …). */
export class UsersApi {
  constructor(private readonly caller: PlatformCaller) {}

  list(options: UserListOptions = {}): AsyncGenerator<PlatformUser, void, undefined> {
    const query: FlatParams = options.terms === undefined ? {} : { terms: options.terms };
    return paginate(
      this.caller,
      { path: '/user', pageParam: 'user_page', query, item: platformUserSchema },
      options,
    );
  }

  async get(ref: MemberRef): Promise<PlatformUser> {
    const target = memberTarget('/user/member', ref);
    return this.fetchOne({ method: 'GET', path: target.path, query: target.params });
  }

  /** The user of this conference with that e-mail, or `undefined` when the platform answers 404. */
  async getByEmail(email: string): Promise<PlatformUser | undefined> {
    const request: PlatformRequest = {
      method: 'GET',
      path: '/user/member',
      query: { [emailParam(this.caller.vendor)]: email },
    };
    try {
      return await this.fetchOne(request);
    } catch (error) {
      if (error instanceof PlatformHttpError && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * `POST /user`. Not retried when the answer is lost (an `OutcomeUnknownError` is thrown):
   * look the user up by e-mail before sending it again.
   */
  async create(params: FlatParams): Promise<UserCreateResult> {
    const request: PlatformRequest = { method: 'POST', path: '/user', body: params };
    const response = await this.caller.send(request);
    const user = parseBody(request, response, platformUserSchema);
    return { outcome: response.status === 203 ? 'attached' : 'created', user };
  }

  /**
   * `PUT /user/member/{id}`. A password param is refused unless `allowPasswordChange`:
   * in a PUT it changes the stored password (§4.2 rule 5), which a sync must not do by accident.
   */
  async update(ref: MemberRef, params: FlatParams, options: UserUpdateOptions = {}): Promise<PlatformUser> {
    if (!options.allowPasswordChange) {
      const password = Object.keys(params).find((name) => PASSWORD_PARAM.test(name));
      if (password !== undefined) throw new PasswordInUpdateError(password);
    }
    const target = memberTarget('/user/member', ref);
    return this.fetchOne({ method: 'PUT', path: target.path, body: { ...params, ...target.params } });
  }

  /** Removes the user from this conference only (§4.2 rule 4). */
  async delete(ref: MemberRef): Promise<void> {
    const target = memberTarget('/user/member', ref);
    await this.caller.send({ method: 'DELETE', path: target.path, body: target.params });
  }

  private async fetchOne(request: PlatformRequest): Promise<PlatformUser> {
    const response = await this.caller.send(request);
    return parseBody(request, response, platformUserSchema);
  }
}
