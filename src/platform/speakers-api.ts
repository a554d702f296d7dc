import type { MemberRef } from './member-ref.js';
import { memberTarget } from './member-ref.js';
import type { ListOptions } from './paginate.js';
import { paginate } from './paginate.js';
import type { FlatParams } from '../model/params.js';
import type { PlatformAck, PlatformCaller } from './platform-caller.js';
import { ackOf } from './platform-caller.js';
import type { PlatformRequest } from './platform-request.js';
import type { PlatformUser } from './response-schemas.js';
import { platformUserSchema } from './response-schemas.js';

export interface SpeakerListOptions extends ListOptions {
  terms?: string;
}

/** §4.4 speakers. Listing answers user objects (§2.5). */
export class SpeakersApi {
  constructor(private readonly caller: PlatformCaller) {}

  list(options: SpeakerListOptions = {}): AsyncGenerator<PlatformUser, void, undefined> {
    const query: FlatParams = options.terms === undefined ? {} : { terms: options.terms };
    return paginate(
      this.caller,
      { path: '/speaker', pageParam: 'speaker_page', query, item: platformUserSchema },
      options,
    );
  }

  listForEvent(
    event: MemberRef,
    options: SpeakerListOptions = {},
  ): AsyncGenerator<PlatformUser, void, undefined> {
    const target = memberTarget('/speaker/event', event);
    const query: FlatParams = {
      ...target.params,
      ...(options.terms === undefined ? {} : { terms: options.terms }),
    };
    return paginate(
      this.caller,
      { path: target.path, pageParam: 'speaker_page', query, item: platformUserSchema },
      options,
    );
  }

  /**
   * `POST /speaker/event/{id}`; `params` hold exactly one of `speaker[user_id]` and
   * `speaker[user_client_id]`, and optionally `speaker[type_name]`.
   */
  async add(event: MemberRef, params: FlatParams): Promise<PlatformAck> {
    return this.link('POST', event, params);
  }

  async remove(event: MemberRef, params: FlatParams): Promise<PlatformAck> {
    return this.link('DELETE', event, params);
  }

  private async link(method: 'POST' | 'DELETE', event: MemberRef, params: FlatParams): Promise<PlatformAck> {
    const target = memberTarget('/speaker/event', event);
    const request: PlatformRequest = { method, path: target.path, body: { ...params, ...target.params } };
    return ackOf(request, await this.caller.send(request));
  }
}
