import { z } from 'zod';
import type { ListOptions } from './paginate.js';
import { paginate } from './paginate.js';
import type { FlatParams } from '../model/params.js';
import type { PlatformCaller } from './platform-caller.js';
import { parseBody } from './platform-caller.js';
import type { PlatformRequest } from './platform-request.js';
import type { CheckIn } from './response-schemas.js';
import { checkInSchema } from './response-schemas.js';

/** §4.1 check-ins and chatter. Build create params with `check-in-params.ts`. */
export class CheckInsApi {
  constructor(private readonly caller: PlatformCaller) {}

  my(options: ListOptions = {}): AsyncGenerator<CheckIn, void, undefined> {
    return paginate(
      this.caller,
      { path: '/check_in/my', pageParam: 'comment_page', item: checkInSchema },
      options,
    );
  }

  chatter(options: ListOptions = {}): AsyncGenerator<CheckIn, void, undefined> {
    return paginate(
      this.caller,
      { path: '/check_in/chatter', pageParam: 'comment_page', item: checkInSchema },
      options,
    );
  }

  /** The latest check-in of each contact; this listing takes no page params (§4.1). */
  async contacts(): Promise<CheckIn[]> {
    const request: PlatformRequest = { method: 'GET', path: '/check_in/contacts' };
    return parseBody(request, await this.caller.send(request), z.array(checkInSchema));
  }

  async get(id: number): Promise<CheckIn> {
    if (!Number.isSafeInteger(id) || id < 0) throw new TypeError(`not a check-in id: ${id}`);
    const request: PlatformRequest = { method: 'GET', path: `/check_in/member/${id}` };
    return parseBody(request, await this.caller.send(request), checkInSchema);
  }

  /** `POST /check_in`, in any of its three forms; never retried when it may have been recorded. */
  async create(params: FlatParams): Promise<CheckIn> {
    const request: PlatformRequest = { method: 'POST', path: '/check_in', body: params, unrepeatable: true };
    return parseBody(request, await this.caller.send(request), checkInSchema);
  }
}
