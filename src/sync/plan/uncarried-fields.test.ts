import { describe, expect, it } from 'vitest';
import type { IntentKind } from '../../model/intent.js';
import type { FlatParams } from '../../model/params.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { hashIntent } from './params-hash.js';
import { keepUncarriedFields } from './uncarried-fields.js';

const BIO = 'user[item_attributes][article_attributes][content]';
const PASSWORD = 'user[svc_auth_attributes][password]';

/** What the JSON run synced: the name and the bio. */
const SYNCED: FlatParams = { client_id: 'px-26', 'user[first_name]': 'Brian', [BIO]: '<p>Bio</p>' };

function update(params: FlatParams, uncarried = [BIO]): PlannedIntent {
  return {
    kind: 'user',
    key: 'px-26',
    op: 'upsert',
    plannedAction: 'update',
    params: { client_id: 'px-26', ...params },
    origin: null,
    dependsOn: [],
    uncarried,
    hash: hashIntent('upsert', { client_id: 'px-26', ...params }),
  };
}

async function plan(item: PlannedIntent, full = false, synced = SYNCED) {
  const work = [item];
  const unchanged: PlannedIntent[] = [];
  const hashes = new Map<IntentKind, Map<string, string>>([
    ['user', new Map([['px-26', hashIntent('upsert', synced)]])],
  ]);
  await keepUncarriedFields(
    { syncedParams: () => Promise.resolve(new Map([['px-26', synced]])) },
    { work, unchanged },
    { hashes, full },
  );
  return { work, unchanged };
}

describe('keepUncarriedFields', () => {
  it('finds a row unchanged when only the fields its format cannot carry are missing', async () => {
    const { work, unchanged } = await plan(update({ 'user[first_name]': 'Brian' }));
    expect(work).toEqual([]);
    expect(unchanged).toHaveLength(1);
    expect(unchanged[0]).toMatchObject({ plannedAction: 'unchanged', hash: hashIntent('upsert', SYNCED) });
  });

  it('updates a row whose other fields changed with the bio as last synced, never empty', async () => {
    const { work, unchanged } = await plan(update({ 'user[first_name]': 'Bryan' }));
    expect(unchanged).toEqual([]);
    expect(work[0]?.plannedAction).toBe('update');
    expect(work[0]?.params).toEqual({ ...SYNCED, 'user[first_name]': 'Bryan' });
    // The hash is that of what the platform now holds: a switch back to the JSON with the
    // same bio finds the row unchanged.
    expect(work[0]?.hash).toBe(hashIntent('upsert', { ...SYNCED, 'user[first_name]': 'Bryan' }));
  });

  it('leaves a field the format carries alone, and sends a full run anyway', async () => {
    const carried = await plan(update({ 'user[first_name]': 'Brian' }, []));
    expect(carried.work[0]?.params).not.toHaveProperty(BIO);
    const full = await plan(update({ 'user[first_name]': 'Brian' }), true);
    expect(full.work[0]).toMatchObject({ plannedAction: 'update', params: SYNCED });
  });

  it('never reads a secret back from the ledger', async () => {
    const synced = { ...SYNCED, [PASSWORD]: '[redacted]' };
    const { work } = await plan(update({ 'user[first_name]': 'Brian' }, [BIO, PASSWORD]), false, synced);
    expect(work[0]?.params).not.toHaveProperty(PASSWORD);
  });
});
