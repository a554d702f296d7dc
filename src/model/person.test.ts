import { describe, expect, it } from 'vitest';
import { membershipRank, personKey } from './person.js';

describe('personKey', () => {
  it('is the e-mail trimmed and lower-cased; empty names nobody', () => {
    expect(personKey(' Ada@Example.ORG ')).toBe('ada@example.org');
    expect(personKey('ada@example.org')).toBe(personKey('ADA@example.org'));
    expect(personKey('  ')).toBeUndefined();
    expect(personKey(undefined)).toBeUndefined();
  });
});

describe('membershipRank', () => {
  it('puts a speaker above press and member, and unknown values last', () => {
    expect(membershipRank('speaker')).toBeLessThan(membershipRank('press'));
    expect(membershipRank('Press')).toBeLessThan(membershipRank('member'));
    expect(membershipRank('member')).toBeLessThan(membershipRank('bogus'));
  });
});
