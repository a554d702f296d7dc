import { describe, expect, it } from 'vitest';
import { clearingParams, withoutBlanks } from './clear-params.js';

describe('clearingParams', () => {
  it('sends most fields blank, the bio as remove_article, custom data as {} and membership as member', () => {
    const result = clearingParams({
      'user[first_name]': 'Ann',
      'user[employee_attributes][position]': '',
      'user[item_attributes][article_attributes][content]': '',
      'user[account_attributes][profiles_attributes][0][custom_data]': '',
      'user[membership]': '',
      'user[svc_auth_attributes][password]': '',
    });
    expect(result.params).toEqual({
      'user[first_name]': 'Ann',
      'user[employee_attributes][position]': '',
      'user[item_attributes][remove_article]': '1',
      'user[account_attributes][profiles_attributes][0][custom_data]': '{}',
      'user[membership]': 'member',
    });
    expect(result.notCleared).toEqual([]);
  });

  it('keeps out what the platform cannot clear, and says why', () => {
    const result = clearingParams({
      'user[account_attributes][addresses_attributes][0][city]': '',
      'user[account_attributes][addresses_attributes][0][street2]': '',
      'user[account_attributes][preferences_attributes][0][key]': '',
    });
    expect(result.params).toEqual({});
    expect(result.notCleared.map((n) => n.name)).toEqual([
      'user[account_attributes][addresses_attributes][0][city]',
      'user[account_attributes][addresses_attributes][0][street2]',
      'user[account_attributes][preferences_attributes][0][key]',
    ]);
  });

  it('blanks a field of an address that stays, and never a track the update sets by its other form', () => {
    const result = clearingParams({
      'user[account_attributes][addresses_attributes][0][city]': 'Berlin',
      'user[account_attributes][addresses_attributes][0][street2]': '',
      'event[track_id]': '7',
      'event[track_name]': '',
    });
    expect(result.params).toEqual({
      'user[account_attributes][addresses_attributes][0][city]': 'Berlin',
      'user[account_attributes][addresses_attributes][0][street2]': '',
      'event[track_id]': '7',
    });
  });

  it('drops a speaker that left while others stay; the last one cannot be cleared', () => {
    const kept = clearingParams({
      'event[speakers_attributes][0][user_client_id]': 'u1',
      'event[speakers_attributes][1][user_client_id]': '',
    });
    expect(kept.params).toEqual({ 'event[speakers_attributes][0][user_client_id]': 'u1' });
    expect(kept.notCleared).toEqual([]);
    const last = clearingParams({ 'event[speakers_attributes][0][user_client_id]': '' });
    expect(last.notCleared).toHaveLength(1);
  });

  it('withoutBlanks leaves a create no empty value', () => {
    expect(withoutBlanks({ a: '1', b: '' })).toEqual({ a: '1' });
  });
});
