import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { addClearedFields } from './cleared-fields.js';

const BIO = 'user[item_attributes][article_attributes][content]';
const COMPANY = 'user[account_attributes][company]';

function update(params: Record<string, string>, uncarried?: string[]): PlannedIntent {
  return {
    kind: 'user',
    key: 'px-26',
    op: 'upsert',
    plannedAction: 'update',
    params: { client_id: 'px-26', 'user[first_name]': 'Brian', ...params },
    origin: null,
    dependsOn: [],
    ...(uncarried ? { uncarried } : {}),
    hash: 'source-hash',
  };
}

const ledger = {
  syncedParamNames: () =>
    Promise.resolve(new Map([['px-26', ['client_id', 'user[first_name]', BIO, COMPANY]]])),
};

describe('addClearedFields', () => {
  it('clears a field synced before and empty in the source, keeping the source hash', async () => {
    const work = [update({})];
    await addClearedFields(ledger, work);
    expect(work[0]?.params).toMatchObject({ [BIO]: '', [COMPANY]: '' });
    expect(work[0]?.hash).toBe('source-hash');
  });

  it("never clears a field the source's format does not carry; an empty one still is", async () => {
    const work = [update({}, [BIO])];
    await addClearedFields(ledger, work);
    expect(work[0]?.params).not.toHaveProperty(BIO);
    expect(work[0]?.params).toMatchObject({ [COMPANY]: '' });
  });
});
