import { z } from 'zod';
import type { FlatParams } from '../model/params.js';
import type { PlatformAck, PlatformCaller } from './platform-caller.js';
import { ackOf, readJson } from './platform-caller.js';
import { PlatformResponseError } from './platform-error.js';
import type { PlatformRequest } from './platform-request.js';
import type { PlatformContact } from './response-schemas.js';
import { contactSchema } from './response-schemas.js';

/**
 * §4.3 contacts of a user (`client_id` names the user; without it, the key's own user).
 * The listing takes no page param in the spec, so it is read in one call.
 */
export class ContactsApi {
  constructor(private readonly caller: PlatformCaller) {}

  async list(params: FlatParams = {}): Promise<PlatformContact[]> {
    const request: PlatformRequest = { method: 'GET', path: '/role/contacts', query: params };
    const json = readJson(request, await this.caller.send(request));
    if (json === null) return [];
    // The body is not shown in the spec: accept a bare array or one wrapped in an object.
    const list = Array.isArray(json) ? json : firstArrayIn(json);
    const parsed = z.array(contactSchema).safeParse(list);
    if (!parsed.success) {
      throw new PlatformResponseError(
        { method: 'GET', path: '/role/contacts' },
        200,
        'not a list of contacts',
      );
    }
    return parsed.data;
  }

  /** `params`: `client_id` (optional) and `user_id` or `exhibitor_id`. Adding twice is harmless. */
  async add(params: FlatParams): Promise<PlatformAck> {
    return this.write({ method: 'POST', path: '/role/contacts', body: params, idempotent: true });
  }

  async remove(params: FlatParams): Promise<PlatformAck> {
    return this.write({ method: 'DELETE', path: '/role/contacts', body: params });
  }

  private async write(request: PlatformRequest): Promise<PlatformAck> {
    return ackOf(request, await this.caller.send(request));
  }
}

function firstArrayIn(json: unknown): unknown {
  if (typeof json !== 'object' || json === null) return json;
  return Object.values(json).find((value) => Array.isArray(value)) ?? json;
}
