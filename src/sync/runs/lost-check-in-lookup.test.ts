import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { CheckIn } from '../../platform/response-schemas.js';
import { lookUpLostCheckIns } from './lost-check-in-lookup.js';

const at = (ms: number) => ({ json_class: 'Time', s: Math.floor(ms / 1000), n: 0 });
const T = Date.parse('2026-11-27T10:00:00Z');

function checkIn(key: string, params: Record<string, string>): PlannedIntent {
  return {
    kind: 'check_in',
    key,
    op: 'upsert',
    plannedAction: 'create',
    params,
    origin: null,
    dependsOn: [],
    hash: key,
  };
}
const lost = (item: PlannedIntent) => ({ item, sentFrom: new Date(T), sentBy: new Date(T + 1000) });
const platform = (listed: CheckIn[]) => ({
  checkIns: {
    create: () => Promise.reject(new Error('no POST in a lookup')),
    my: () =>
      (async function* () {
        for (const entry of listed) yield await Promise.resolve(entry);
      })(),
  },
});

describe('lookUpLostCheckIns', () => {
  const own = checkIn('a', {
    'check_in[mode]': '1',
    'check_in[center]': '13.4,52.5',
    'check_in[display_value]': 'Hall',
  });
  const twin = checkIn('b', { ...own.params });
  const theirs = checkIn('c', { ...own.params, client_id: 'u1' });

  it('finds the key owner\u2019s own by mode, text, place and time, one listed check-in per POST', async () => {
    const listed: CheckIn[] = [
      {
        id: 7,
        display_value: 'Hall',
        mode: 'check_in',
        created_at: at(T + 500),
        location: { latlng: { lat: 52.5, lng: 13.4 } },
      },
    ];
    const lookup = await lookUpLostCheckIns(platform(listed), [lost(own), lost(twin), lost(theirs)]);
    expect([...lookup.found.values()]).toEqual([7]);
    expect(lookup.absent).toHaveLength(1);
    // In another user's name: §4.1 lists only the caller's own.
    expect(lookup.unknowable).toEqual([theirs]);
  });

  it('a check-in the ledger knows, or one from before the POST, is not the lost one', async () => {
    const listed: CheckIn[] = [
      {
        id: 8,
        display_value: 'Hall',
        mode: 'check_in',
        created_at: at(T + 500),
        location: { latlng: { lat: 52.5, lng: 13.4 } },
      },
      {
        id: 9,
        display_value: 'Hall',
        mode: 'check_in',
        created_at: at(T - 3_600_000),
        location: { latlng: { lat: 52.5, lng: 13.4 } },
      },
    ];
    const lookup = await lookUpLostCheckIns(platform(listed), [lost(own)], new Set([8]));
    expect(lookup.absent).toEqual([own]);
  });

  it('a place it cannot read, or a listing that breaks, leaves it unknowable', async () => {
    const unreadable: CheckIn[] = [
      { id: 10, display_value: 'Hall', mode: 'check_in', created_at: at(T + 500), location: {} },
    ];
    expect((await lookUpLostCheckIns(platform(unreadable), [lost(own)])).unknowable).toEqual([own]);
    const broken = {
      checkIns: {
        create: () => Promise.reject(new Error('no')),
        my: (): AsyncIterable<CheckIn> => ({
          [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('reset')) }),
        }),
      },
    };
    expect((await lookUpLostCheckIns(broken, [lost(own)])).unknowable).toEqual([own]);
  });
});
