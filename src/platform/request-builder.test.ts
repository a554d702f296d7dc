import { describe, expect, it } from 'vitest';
import { decodeForm } from './params.js';
import { buildHttpRequest } from './request-builder.js';
import { md5Hex } from './signing.js';

const credentials = { keyId: 7, signingKey: 'KEY' };

function queryOf(target: string): Record<string, string> {
  return decodeForm(target.slice(target.indexOf('?') + 1));
}

describe('buildHttpRequest', () => {
  it('GET: params and format=json in the signed query, Accept JSON, no body', () => {
    const http = buildHttpRequest(
      { method: 'GET', path: '/user', query: { user_page: '2', limit: '100' } },
      credentials,
    );
    expect(http.method).toBe('GET');
    expect(http.target.startsWith('/user?')).toBe(true);
    expect(http.body).toBeUndefined();
    expect(http.headers.accept).toBe('application/json');
    expect(http.headers['content-type']).toBeUndefined();
    const query = queryOf(http.target);
    expect(query).toMatchObject({ format: 'json', user_page: '2', limit: '100', key_id: '7' });
    expect(query.sig).toBe(md5Hex('format=jsonkey_id=7limit=100user_page=2KEY'));
  });

  it('a caller may ask for another format', () => {
    const http = buildHttpRequest({ method: 'GET', path: '/user', query: { format: 'atom' } }, credentials);
    expect(queryOf(http.target).format).toBe('atom');
  });

  it.each(['POST', 'PUT', 'DELETE'] as const)('%s: body form-encoded and signed as POST params', (method) => {
    const body = { 'user[first_name]': 'A+b & c=d%', 'user[last_name]': 'Zoë\nX', client_id: '' };
    const http = buildHttpRequest({ method, path: '/user/member/3', body }, credentials);
    expect(http.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
    expect(decodeForm(http.body ?? '')).toEqual(body);
    const query = queryOf(http.target);
    expect(Object.keys(query).sort()).toEqual(['format', 'key_id', 'sig']);
    expect(query.sig).toBe(md5Hex('format=jsonkey_id=7user[first_name]=A+b & c=d%user[last_name]=Zoë\nXKEY'));
  });

  it('refuses a GET with body params rather than dropping them', () => {
    expect(() => buildHttpRequest({ method: 'GET', path: '/user', body: { a: '1' } }, credentials)).toThrow(
      /carries no body/,
    );
  });
});
