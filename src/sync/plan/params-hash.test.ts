import { describe, expect, it } from 'vitest';
import { hashIntent } from './params-hash.js';

describe('hashIntent', () => {
  // Hashes are stored in every ledger: a change of the function would make the next run
  // see every row as changed. These values were computed by the first implementation.
  it('keeps the fingerprints that ledgers already hold', () => {
    expect(
      hashIntent('upsert', { 'user[last_name]': 'Doe', 'user[first_name]': 'Zoë', 'user[client_id]': 'a-1' }),
    ).toBe('272c2b775d03eb22c3f741252c344b68100a74dcbd5ab0187947cefc27e7e79a');
    expect(hashIntent('remove', { event_client_id: 'e1', user_client_id: 'u1' })).toBe(
      '9d87f4fcb33ab3c68821c597f3f73927317d7fc1d987a4b8b92a18e1e503c596',
    );
    expect(hashIntent('upsert', {})).toBe('4e3b92fce522aba8776072e73c107121ae9661c7787db93111edeaba3d275062');
  });

  it('ignores param order, and tells the op and the split between name and value apart', () => {
    expect(hashIntent('upsert', { a: '1', b: '2' })).toBe(hashIntent('upsert', { b: '2', a: '1' }));
    expect(hashIntent('upsert', { a: '1' })).not.toBe(hashIntent('remove', { a: '1' }));
    expect(hashIntent('upsert', { a: 'bc' })).not.toBe(hashIntent('upsert', { ab: 'c' }));
  });
});
