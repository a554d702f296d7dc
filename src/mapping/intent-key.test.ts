import { describe, expect, it } from 'vitest';
import { intentKey } from './intent-identity.js';
import { clientIdOfPart, keyPart, readUserPart, splitLinkKey } from '../model/link-key.js';

describe('link keys', () => {
  it('keeps two client ids apart whatever they hold', () => {
    const a = intentKey('speaker', { client_id: 'x/y', 'speaker[user_client_id]': 'z' });
    const b = intentKey('speaker', { client_id: 'x', 'speaker[user_client_id]': 'y/z' });
    expect(a).not.toBe(b);
    const [event, user] = splitLinkKey(a!);
    expect([clientIdOfPart(event), readUserPart(user)]).toEqual(['x/y', { clientId: 'z' }]);
  });

  it('never reads a client id as a platform id or an e-mail', () => {
    const byClientId = intentKey('rsvp', { 'user[client_id]': '#12', client_id: 'e' });
    const byId = intentKey('rsvp', { 'user[id]': '12', client_id: 'e' });
    const colon = intentKey('rsvp', { 'user[client_id]': 'email:a@b.org', client_id: 'e' });
    const byEmail = intentKey('rsvp', { 'user[email]': 'a@b.org', client_id: 'e' });
    expect(new Set([byClientId, byId, colon, byEmail]).size).toBe(4);
    expect(readUserPart(splitLinkKey(byClientId!)[0])).toEqual({ clientId: '#12' });
    expect(readUserPart(splitLinkKey(byId!)[0])).toEqual({ id: '12' });
    expect(readUserPart(splitLinkKey(colon!)[0])).toEqual({ clientId: 'email:a@b.org' });
    expect(readUserPart(splitLinkKey(byEmail!)[0])).toEqual({ email: 'a@b.org' });
    expect(intentKey('schedule', { 'user[client_id]': '#12' })).not.toBe(
      intentKey('schedule', { 'user[id]': '12' }),
    );
  });

  it('leaves plain client ids as they are, and round-trips every other', () => {
    expect(intentKey('speaker', { client_id: 'ses-1', 'speaker[user_client_id]': 'u-1' })).toBe('ses-1/u-1');
    for (const id of ['%2F', 'a%/b#c:d', '%%25', 'ü/€', '']) expect(clientIdOfPart(keyPart(id))).toBe(id);
  });
});
