import { describe, expect, it } from 'vitest';
import { PersonIds, SlotIds } from './schedule-identity.js';

describe('SlotIds: one session per time slot, keyed by guid', () => {
  it('takes the guid over a numeric id that sub-schedules reuse', () => {
    const slots = new SlotIds();
    expect(slots.id('g-a', 101, '2024-12-27T11:00:00+01:00')).toBe('g-a');
    expect(slots.id('g-b', 101, '2024-12-27T12:00:00+01:00')).toBe('g-b');
    expect(slots.id(undefined, 102, '2024-12-27T12:00:00+01:00')).toBe('102');
  });

  it('gives a talk repeated at another start its own id, and the same slot twice the same id', () => {
    const slots = new SlotIds();
    expect(slots.id('g', 1, '2024-12-27T14:00:00+01:00')).toBe('g');
    expect(slots.id('g', 1, '2024-12-28T14:00:00+01:00')).toBe('g@20241228T1400');
    expect(slots.id('g', 1, '2024-12-27T14:00:00+01:00')).toBe('g');
  });
});

describe('PersonIds: never one person for several names', () => {
  it('keeps an id that stands for one name, and splits by name an id that stands for several', () => {
    const people = [
      { id: 7, public_name: 'Ada Lovelace' },
      { id: 0, public_name: 'Zitro' },
      { id: 0, public_name: 'Larma' },
      { id: 0, public_name: 'zitro ' },
      { code: 'ABC123', public_name: 'Grace Hopper' },
    ];
    const ids = new PersonIds(people);
    expect(ids.id(people[0]!)).toBe('7');
    expect(ids.id(people[4]!)).toBe('ABC123');
    const zitro = ids.id(people[1]!);
    expect(zitro).toMatch(/^0~[0-9a-f]{10}$/);
    expect(ids.id(people[2]!)).toMatch(/^0~[0-9a-f]{10}$/);
    expect(ids.id(people[2]!)).not.toBe(zitro);
    // The same name (spacing and case aside) under the shared id is one person.
    expect(ids.id(people[3]!)).toBe(zitro);
  });

  it('keys a pretalx person by the numeric id its XML export writes too, not by the code', () => {
    const json = {
      id: 26,
      code: 'NQTF8Y',
      guid: 'c0ffee00-0000-4000-8000-000000000026',
      public_name: 'Brian',
    };
    const xml = { id: '26', public_name: 'Brian' };
    const ids = new PersonIds([json]);
    expect(ids.id(json)).toBe('26');
    expect(new PersonIds([xml]).id(xml)).toBe('26');
    // pretalx 2025 and later write no numeric id in JSON: the code is all there is.
    expect(new PersonIds([{ code: 'NQTF8Y', guid: 'g' }]).id({ code: 'NQTF8Y', guid: 'g' })).toBe('NQTF8Y');
    // The c3voc hub writes guid and id, no code: the guid, as before.
    expect(new PersonIds([{ guid: 'g', id: 4 }]).id({ guid: 'g', id: 4 })).toBe('g');
  });

  it('names a person without any id by their name, and logs the ambiguous ids', () => {
    const ids = new PersonIds([{ public_name: 'Solo' }, { id: 5, name: 'A' }, { id: 5, name: 'B' }]);
    expect(ids.id({ public_name: 'Solo' })).toMatch(/^~[0-9a-f]{10}$/);
    const warnings: unknown[][] = [];
    ids.report('Congress', { warn: (...args: unknown[]) => warnings.push(args) } as never);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.[0]).toMatchObject({ ids: 1, examples: ['id 5: 2 names'] });
  });
});
