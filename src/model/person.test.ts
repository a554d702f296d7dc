import { describe, expect, it } from 'vitest';
import { anotherPerson, lowerCase, membershipRank, namesAgree, personKey } from './person.js';

describe('personKey', () => {
  it('is the e-mail trimmed and lower-cased; empty names nobody', () => {
    expect(personKey(' Ada@Example.ORG ')).toBe('ada@example.org');
    expect(personKey('ada@example.org')).toBe(personKey('ADA@example.org'));
    expect(personKey('  ')).toBeUndefined();
    expect(personKey(undefined)).toBeUndefined();
  });

  it('never folds a non-ASCII letter into ASCII: the Kelvin sign is no k', () => {
    expect(personKey('\u212Aate@x.org')).not.toBe(personKey('kate@x.org'));
    expect(lowerCase('\u212Aate@X.org')).toBe('\u212Aate@x.org');
    expect(lowerCase('ÉLODIE')).toBe('élodie');
    expect(lowerCase('Straſse')).toBe('straſse');
  });
});

describe('namesAgree', () => {
  it('takes case, accents, spacing, order and initials as one person', () => {
    expect(namesAgree('Ada Lovelace', ' ada  LOVELACE ')).toBe(true);
    expect(namesAgree('José Müller', 'Jose Muller')).toBe(true);
    expect(namesAgree('Lovelace, Ada', 'Ada Lovelace')).toBe(true);
    expect(namesAgree('A. Lovelace', 'Ada Lovelace')).toBe(true);
    expect(namesAgree('Ada King Lovelace', 'Ada Lovelace')).toBe(true);
    expect(namesAgree('Jean-Luc Picard', 'Jean Luc Picard')).toBe(true);
    expect(namesAgree('Grace', 'Grace Hopper')).toBe(true);
    expect(namesAgree('Ann One', 'Anna One')).toBe(true);
    expect(namesAgree('', 'Grace Hopper')).toBe(true);
  });

  it('tells different people apart', () => {
    expect(namesAgree('Thomas Grimes', 'Ada Lovelace')).toBe(false);
    expect(namesAgree('Ada Byron', 'Ada Lovelace')).toBe(false);
    expect(namesAgree('A. B.', 'Ada Byron')).toBe(false);
    expect(namesAgree('T. Lovelace', 'Ada Lovelace')).toBe(false);
    expect(namesAgree('Al Lovelace', 'Ada Lovelace')).toBe(false);
  });
});

describe('membershipRank', () => {
  it('puts a speaker above press and member, and unknown values last', () => {
    expect(membershipRank('speaker')).toBeLessThan(membershipRank('press'));
    expect(membershipRank('Press')).toBeLessThan(membershipRank('member'));
    expect(membershipRank('member')).toBeLessThan(membershipRank('bogus'));
  });
});

describe('anotherPerson', () => {
  const amy = { name: 'Amy Able', email: 'amy@example.org' };
  it('is a new e-mail and a name that disagrees', () => {
    expect(anotherPerson(amy, { name: 'Zed Zimmer', email: 'zed@example.org' })).toBe(true);
  });
  it('is a new e-mail and a first name that only starts like the old one: a ticket handed on in a family', () => {
    const paul = { name: 'Paul Smith', email: 'paul.smith@example.org' };
    expect(anotherPerson(paul, { name: 'Paula Smith', email: 'paula.smith@example.org' })).toBe(true);
    expect(anotherPerson(paul, { name: 'P. Smith', email: 'p.smith@example.org' })).toBe(true);
    // Under the same e-mail the names still agree: a first name written out, a typo fixed.
    expect(anotherPerson(paul, { name: 'Paula Smith', email: 'Paul.Smith@example.org' })).toBe(false);
  });
  it('is a name with no word in common under one e-mail: an order’s, shared by its tickets', () => {
    const buyer = { name: 'Anna Alpha', email: 'buyer@example.org' };
    expect(anotherPerson(buyer, { name: 'Zoe Zulu', email: 'Buyer@example.org' })).toBe(true);
    expect(anotherPerson(buyer, { name: 'A. Zulu', email: 'buyer@example.org' })).toBe(false);
    expect(anotherPerson(buyer, { name: 'Ann Beta', email: 'buyer@example.org' })).toBe(false);
    expect(anotherPerson(buyer, { name: '', email: 'buyer@example.org' })).toBe(false);
    // A handle says nothing (pretalx's public names), nor an umlaut spelt out.
    const moritz = { name: 'Moritz Hilscher', email: 'm@x.org' };
    expect(anotherPerson(moritz, { name: 'lasermo', email: 'm@x.org' })).toBe(false);
    expect(anotherPerson(moritz, { name: 'lasermo lasermo', email: 'm@x.org' })).toBe(false);
    const jurgen = { name: 'Jürgen Müller', email: 'j@x.org' };
    expect(anotherPerson(jurgen, { name: 'Juergen Mueller', email: 'j@x.org' })).toBe(false);
  });
  it('is not a new name under the same e-mail, a new e-mail under an agreeing name, nor an empty e-mail', () => {
    expect(anotherPerson(amy, { name: 'Amy Zimmer', email: ' AMY@example.org ' })).toBe(false);
    expect(
      anotherPerson({ name: 'Jon Smith', email: 'j@x.org' }, { name: 'John Smith', email: 'j@x.org' }),
    ).toBe(false);
    expect(anotherPerson(amy, { name: 'Able, Amy', email: 'amy.able@example.org' })).toBe(false);
    expect(anotherPerson(amy, { name: 'Amy B. Able', email: 'amy.able@example.org' })).toBe(false);
    expect(
      anotherPerson(
        { name: 'Jürgen Müller', email: 'j@x.org' },
        { name: 'Juergen Mueller', email: 'jm@x.org' },
      ),
    ).toBe(false);
    expect(anotherPerson(amy, { name: 'Zed Zimmer', email: '' })).toBe(false);
    expect(
      anotherPerson({ name: 'Amy Able', email: '' }, { name: 'Zed Zimmer', email: 'zed@example.org' }),
    ).toBe(false);
  });
});
