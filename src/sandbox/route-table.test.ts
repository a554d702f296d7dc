import { describe, expect, it } from 'vitest';
import { matchRoute } from './route-table.js';

describe('matchRoute', () => {
  it('finds member paths with and without their {id}', () => {
    expect(matchRoute('GET', '/user/member/12')).toMatchObject({
      kind: 'found',
      route: { pattern: '/user/member/{id}' },
      pathId: '12',
    });
    expect(matchRoute('PUT', '/event/member')).toMatchObject({ kind: 'found', pathId: undefined });
    expect(matchRoute('DELETE', '/user/5')).toMatchObject({ route: { pattern: '/user/{id}' }, pathId: '5' });
    expect(matchRoute('GET', '/user')).toMatchObject({ route: { pattern: '/user' }, pathId: undefined });
    expect(matchRoute('PUT', '/event/schedule')).toMatchObject({ route: { pattern: '/event/schedule' } });
    expect(matchRoute('GET', '/speaker/event/')).toMatchObject({ route: { pattern: '/speaker/event/{id}' } });
  });

  it('tells a wrong method from an unknown path', () => {
    expect(matchRoute('PATCH', '/user/member/1')).toEqual({
      kind: 'wrong-method',
      allowed: ['GET', 'PUT', 'DELETE'],
    });
    expect(matchRoute('GET', '/user/1')).toEqual({ kind: 'wrong-method', allowed: ['DELETE'] });
    expect(matchRoute('GET', '/users')).toEqual({ kind: 'not-found' });
    expect(matchRoute('GET', '/user/member/1/2')).toEqual({ kind: 'not-found' });
    expect(matchRoute('GET', '/')).toEqual({ kind: 'not-found' });
  });
});
