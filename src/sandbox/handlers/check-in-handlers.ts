import type { FlatParams } from '../../model/params.js';
import { nowMicros } from '../clock.js';
import { pageOf } from '../paging.js';
import { invalidParam, notFound } from '../sandbox-http-error.js';
import { formatted, type Handler, type SandboxRequest } from '../sandbox-request.js';
import type { SandboxState } from '../sandbox-state.js';
import { checkInJson } from '../serialize/check-in-json.js';
import type { CheckInPlace, CheckInRecord, UserRecord } from '../state-types.js';
import { contactOwner } from './contact-handlers.js';

const PLACE_KINDS = ['exhibitor', 'user', 'feature', 'event'] as const;

function listReply(request: SandboxRequest, state: SandboxState, checkIns: CheckInRecord[], paged = true) {
  const page = paged ? pageOf(checkIns, request.params, 'comment_page', 20) : checkIns;
  return formatted(
    request,
    200,
    page.map((checkIn) => checkInJson(state, checkIn)),
    'check_ins',
  );
}

function newestFirst(state: SandboxState, keep: (checkIn: CheckInRecord) => boolean): CheckInRecord[] {
  // Sorted before filtering: a `keep` that remembers what it saw relies on this order.
  return [...state.checkIns.values()].sort((a, b) => b.createdAt - a.createdAt || b.id - a.id).filter(keep);
}

/** GET /check_in/my: the key owner's check-ins, newest first. */
export const listMyCheckIns: Handler = (request, { state }) =>
  listReply(
    request,
    state,
    newestFirst(state, (checkIn) => checkIn.userId === state.adminUserId),
  );

/** GET /check_in/chatter: mode-2 posts of everyone, newest first. */
export const listChatter: Handler = (request, { state }) =>
  listReply(
    request,
    state,
    newestFirst(state, (checkIn) => checkIn.mode === 2),
  );

/** GET /check_in/contacts: the latest check-in of each of the key owner's user contacts. */
export const listContactCheckIns: Handler = (request, { state }) => {
  const owner = contactOwner(state, {});
  const contactIds = new Set(
    state
      .contactsOf(owner.id)
      .filter((contact) => contact.kind === 'user')
      .map((contact) => contact.id),
  );
  const seen = new Set<number>();
  const latest = newestFirst(state, (checkIn) => {
    if (!contactIds.has(checkIn.userId) || seen.has(checkIn.userId)) return false;
    seen.add(checkIn.userId);
    return true;
  });
  return listReply(request, state, latest, false);
};

export const getCheckIn: Handler = (request, { state }) => {
  const checkIn = state.checkIns.get(Number(request.pathId ?? request.params.id));
  if (!checkIn) throw notFound(`Check-in ${request.pathId ?? request.params.id ?? ''}`);
  return formatted(request, 200, checkInJson(state, checkIn), 'check_in');
};

/** POST /check_in: modes 1 and 2 with rules 1–2 (the shape rules are in the shared schemas). */
export const createCheckIn: Handler = (request, { state, validate }) => {
  const { params } = request;
  validate('check_in.create', request);
  const user = checkingInUser(state, params);
  const mode = params['check_in[mode]'] === '2' ? 2 : 1;
  const checkIn: CheckInRecord = {
    id: state.nextId(),
    userId: user.id,
    mode,
    displayValue: params['check_in[display_value]'] || null,
    place: placeOf(state, params),
    createdAt: nowMicros(),
  };
  state.checkIns.set(checkIn.id, checkIn);
  state.changed();
  return formatted(request, 200, checkInJson(state, checkIn), 'check_in');
};

function checkingInUser(state: SandboxState, params: FlatParams): UserRecord {
  let user: UserRecord | undefined;
  if (params.id) user = state.users.get(Number(params.id));
  else if (params.client_id) user = state.userByClientId(params.client_id);
  else return contactOwner(state, {});
  const param = params.id ? 'id' : 'client_id';
  if (!user?.inConference) throw invalidParam(param, `names no user of this conference ("${params[param]}")`);
  return user;
}

function placeOf(state: SandboxState, params: FlatParams): CheckInPlace {
  const center = params['check_in[center]'];
  if (center) {
    const [lng, lat] = center.split(',').map((part) => Number(part.trim()));
    if (lng === undefined || lat === undefined || !Number.isFinite(lng) || !Number.isFinite(lat)) {
      throw invalidParam('check_in[center]', 'must be "<longitude>,<latitude>" in decimal degrees');
    }
    const id = state.nextId();
    const name = params['check_in[display_value]'] || center;
    state.features.set(id, { id, name, itemId: state.nextId(), lat, lng, address: null });
    return { kind: 'center', lat, lng, featureId: id };
  }
  const kind = params['check_in[location_item][type]'];
  const idText = params['check_in[location_item][id]'];
  if (!kind && !idText) return { kind: 'conference' };
  const place = PLACE_KINDS.find((candidate) => candidate === kind);
  if (!place) throw invalidParam('check_in[location_item][type]', `must be one of ${PLACE_KINDS.join(', ')}`);
  const id = Number(idText);
  const exists =
    place === 'user'
      ? state.users.get(id)?.inConference === true
      : (place === 'event' ? state.events : place === 'exhibitor' ? state.exhibitors : state.features).has(
          id,
        );
  if (!exists) throw invalidParam('check_in[location_item][id]', `names no ${place} (${idText ?? ''})`);
  return { kind: place, id };
}
