import type { FlatParams } from '../../model/params.js';
import { invalidParam, notFound } from '../sandbox-http-error.js';
import { jsonReply, type Handler } from '../sandbox-request.js';
import type { SandboxState } from '../sandbox-state.js';
import { displayName } from '../serialize/user-json.js';
import type { ContactRecord, UserRecord } from '../state-types.js';

/**
 * The user whose contacts are handled: the one with `client_id`, else the key's owner.
 * Exported because "the contacts of the current user" also drives /check_in/contacts.
 */
export function contactOwner(state: SandboxState, params: FlatParams): UserRecord {
  if (params.client_id) {
    const user = state.userByClientId(params.client_id);
    if (!user?.inConference) throw notFound(`User with client_id "${params.client_id}"`);
    return user;
  }
  const owner = state.users.get(state.adminUserId);
  if (!owner) throw notFound('The owner of this key');
  return owner;
}

/** A contact record (its fields are not shown by the spec): kind, id, name, client ids. */
function contactJson(state: SandboxState, contact: ContactRecord): Record<string, unknown> {
  if (contact.kind === 'user') {
    const user = state.users.get(contact.id);
    return {
      type: 'user',
      id: contact.id,
      name: user ? displayName(user) : null,
      client_ids: user?.clientIds ?? [],
    };
  }
  const exhibitor = state.exhibitors.get(contact.id);
  return {
    type: 'exhibitor',
    id: contact.id,
    name: exhibitor?.name ?? null,
    client_ids: exhibitor?.clientIds ?? [],
  };
}

/** The contact that `user_id` or `exhibitor_id` names; it must exist. */
function contactOfParams(state: SandboxState, params: FlatParams): ContactRecord {
  if (params.user_id) {
    const user = state.users.get(Number(params.user_id));
    if (!user?.inConference)
      throw invalidParam('user_id', `names no user of this conference (${params.user_id})`);
    return { kind: 'user', id: user.id };
  }
  const exhibitor = state.exhibitors.get(Number(params.exhibitor_id));
  if (!exhibitor) throw invalidParam('exhibitor_id', `names no exhibitor (${params.exhibitor_id ?? ''})`);
  return { kind: 'exhibitor', id: exhibitor.id };
}

/** GET /role/contacts. */
export const listContacts: Handler = (request, { state, validate }) => {
  validate('contact.list', request);
  const owner = contactOwner(state, request.params);
  return jsonReply(
    200,
    state.contactsOf(owner.id).map((contact) => contactJson(state, contact)),
  );
};

/** POST /role/contacts: adding a contact twice keeps one. Answers the contact. */
export const addContact: Handler = (request, { state, validate }) => {
  validate('contact.add', request);
  const owner = contactOwner(state, request.params);
  const contact = contactOfParams(state, request.params);
  const list = state.contactsOf(owner.id);
  if (!list.some((known) => known.kind === contact.kind && known.id === contact.id)) list.push(contact);
  state.changed();
  return jsonReply(200, contactJson(state, contact));
};

/** DELETE /role/contacts: 404 when it is not a contact. */
export const removeContact: Handler = (request, { state, validate }) => {
  validate('contact.remove', request);
  const owner = contactOwner(state, request.params);
  const contact = contactOfParams(state, request.params);
  const list = state.contactsOf(owner.id);
  const index = list.findIndex((known) => known.kind === contact.kind && known.id === contact.id);
  if (index === -1) throw notFound(`Contact ${contact.kind} ${contact.id}`);
  list.splice(index, 1);
  state.changed();
  return jsonReply(200, contactJson(state, contact));
};
