import { z } from 'zod';
import type { MemberRef } from './member-ref.js';
import { memberTarget } from './member-ref.js';
import type { ListOptions } from './paginate.js';
import { paginate } from './paginate.js';
import type { FlatParams } from '../model/params.js';
import type { PlatformAck, PlatformCaller } from './platform-caller.js';
import { ackOf, parseBody } from './platform-caller.js';
import type { PlatformRequest } from './platform-request.js';
import type { PlatformEvent, ScheduleEntry } from './response-schemas.js';
import { platformEventSchema, scheduleEntrySchema } from './response-schemas.js';

/** The user whose schedule is edited: platform id, client id, or (RSVP only) e-mail. */
export type ScheduleUser = { id: number } | { clientId: string } | { email: string };

/** §4.5 events (sessions) and personal schedules. */
export class EventsApi {
  constructor(private readonly caller: PlatformCaller) {}

  list(options: ListOptions = {}): AsyncGenerator<PlatformEvent, void, undefined> {
    return paginate(
      this.caller,
      { path: '/event', pageParam: 'event_page', item: platformEventSchema },
      options,
    );
  }

  async get(ref: MemberRef): Promise<PlatformEvent> {
    const target = memberTarget('/event/member', ref);
    return this.fetchOne({ method: 'GET', path: target.path, query: target.params });
  }

  /**
   * `POST /event`. Not retried when the answer is lost (an `OutcomeUnknownError` is
   * thrown): look the event up by its client_id before sending it again.
   */
  async create(params: FlatParams): Promise<PlatformEvent> {
    return this.fetchOne({ method: 'POST', path: '/event', body: params });
  }

  async update(ref: MemberRef, params: FlatParams): Promise<PlatformEvent> {
    const target = memberTarget('/event/member', ref);
    return this.fetchOne({ method: 'PUT', path: target.path, body: { ...params, ...target.params } });
  }

  async delete(ref: MemberRef): Promise<void> {
    const target = memberTarget('/event/member', ref);
    await this.caller.send({ method: 'DELETE', path: target.path, body: target.params });
  }

  /**
   * `POST /event/rsvp/{id}`: adds one event to a user's schedule. `params` name the user
   * (`user[client_id]`, `user[id]` or `user[email]`). Adding twice leaves one entry, so a
   * lost answer is retried.
   */
  async rsvpAdd(event: MemberRef, params: FlatParams): Promise<PlatformAck> {
    return this.rsvp('POST', event, params);
  }

  /** `DELETE /event/rsvp/{id}`: removes one event from a user's schedule. */
  async rsvpRemove(event: MemberRef, params: FlatParams): Promise<PlatformAck> {
    return this.rsvp('DELETE', event, params);
  }

  /**
   * `PUT /event/schedule`: the user's whole schedule becomes the listed events. `params`
   * hold `user[client_id]` or `user[id]` and `event_client_ids[n]`; see
   * {@link scheduleParams} to build them.
   */
  async replaceSchedule(params: FlatParams): Promise<ScheduleEntry[]> {
    const request: PlatformRequest = { method: 'PUT', path: '/event/schedule', body: params };
    const response = await this.caller.send(request);
    return parseBody(request, response, z.array(scheduleEntrySchema));
  }

  private async rsvp(method: 'POST' | 'DELETE', event: MemberRef, params: FlatParams): Promise<PlatformAck> {
    const target = memberTarget('/event/rsvp', event);
    const request: PlatformRequest = {
      method,
      path: target.path,
      body: { ...params, ...target.params },
      idempotent: true,
    };
    return ackOf(request, await this.caller.send(request));
  }

  private async fetchOne(request: PlatformRequest): Promise<PlatformEvent> {
    const response = await this.caller.send(request);
    return parseBody(request, response, platformEventSchema);
  }
}

/** The params of a schedule replacement or an RSVP for one user. */
export function scheduleUserParams(user: ScheduleUser): FlatParams {
  if ('id' in user) return { 'user[id]': String(user.id) };
  if ('clientId' in user) return { 'user[client_id]': user.clientId };
  return { 'user[email]': user.email };
}

/** `{user[client_id]: u, event_client_ids[0]: a, …}`; an empty list clears the schedule. */
export function scheduleParams(
  user: { id: number } | { clientId: string },
  eventClientIds: readonly string[],
): FlatParams {
  const params = scheduleUserParams(user);
  eventClientIds.forEach((clientId, index) => {
    params[`event_client_ids[${index}]`] = clientId;
  });
  return params;
}
