import { describe, expect, it } from 'vitest';
import type { FlatParams } from '../../model/params.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import type { PlatformUser } from '../../platform/response-schemas.js';
import { refuseOtherConferencesPerson } from './account-owner.js';
import { IdCache } from './id-cache.js';
import { processIntent } from './process-intent.js';
import type { ProcessorContext } from './processor.js';
import type { SyncPlatform } from './sync-platform.js';

const EMAIL = 'user[svc_auth_attributes][email]';
const ALICE: FlatParams = {
  client_id: 'tito-XQ-1',
  'user[first_name]': 'Alice',
  'user[last_name]': 'Ames',
  [EMAIL]: 'alice@example.org',
};

function bobsRow(extra: Partial<PlannedIntent> = {}): PlannedIntent {
  return {
    kind: 'user',
    key: 'tito-XQ-1',
    op: 'upsert',
    plannedAction: 'create',
    params: {
      client_id: 'tito-XQ-1',
      'user[first_name]': 'Bob',
      'user[last_name]': 'Byrne',
      [EMAIL]: 'bob@example.org',
    },
    origin: { source: './tito.csv', row: 1, line: 2 },
    dependsOn: [],
    hash: 'h',
    ...extra,
  };
}

/**
 * A platform that has Alice's account under the key, out of this conference: a create under
 * the key answers 203 with it, as the platform keeps a client_id on its first account.
 */
function platformWithAlice(): { platform: SyncPlatform; calls: string[] } {
  const calls: string[] = [];
  const alice: PlatformUser = { id: 7, first_name: 'Alice', last_name: 'Ames', client_ids: ['tito-XQ-1'] };
  const users = {
    create: (params: FlatParams) => {
      calls.push(`POST /user ${params.client_id}`);
      return Promise.resolve(
        params.client_id === 'tito-XQ-1'
          ? { outcome: 'attached' as const, user: alice }
          : { outcome: 'created' as const, user: { id: 8, client_ids: [params.client_id ?? ''] } },
      );
    },
    update: (ref: unknown) => {
      calls.push(`PUT /user/member ${JSON.stringify(ref)}`);
      return Promise.resolve(alice);
    },
    getByEmail: (email: string) => {
      calls.push(`GET /user/member ${email}`);
      return Promise.resolve(email === 'alice@example.org' ? alice : undefined);
    },
    delete: () => Promise.resolve(),
  };
  return { platform: { vendor: 'svc', users } as unknown as SyncPlatform, calls };
}

function context(platform: SyncPlatform, removed: Record<string, FlatParams>): ProcessorContext {
  return {
    platform,
    ids: new IdCache(),
    markSendStarted: () => Promise.resolve(),
    lastSent: () => Promise.resolve(undefined),
    lastSentBeforeRemoval: (key) => Promise.resolve(removed[key]),
  };
}

describe('a create under a key a mirror delete removed (docs/sync-engine.md, "Who is who")', () => {
  it('is refused before any call when the row names another person than the one last sent', async () => {
    const { platform, calls } = platformWithAlice();
    const outcome = await processIntent(bobsRow(), context(platform, { 'tito-XQ-1': ALICE }));
    expect(calls).toEqual([]);
    expect(outcome).toMatchObject({ action: 'failed', errorCode: 'EVSYNC_KEY_OF_REMOVED_PERSON' });
    expect(outcome.message).toBe(
      'row 1 (line 2) of ./tito.csv: client_id "tito-XQ-1" was "Alice Ames" <alice@example.org> when last synced, ' +
        'and a run has removed that person from this conference since; this row makes it "Bob Byrne" <bob@example.org>. ' +
        'The platform keeps the client_id on the account of "Alice Ames", so a create would put them back in this conference (203), ' +
        'not make one for this row: nothing was sent. Give this person a client_id of their own (Tito: a new ticket, not the old one re-assigned); ' +
        'see docs/sync-engine.md, "Who is who"',
    );
  });

  it('is sent when the row is the person last sent (back in the export), or when the ledger knows nothing of the key', async () => {
    const { platform, calls } = platformWithAlice();
    const back = { ...bobsRow(), params: { ...ALICE, 'user[last_name]': 'Ames-Ray' } };
    const outcome = await processIntent(back, context(platform, { 'tito-XQ-1': ALICE }));
    expect(outcome).toMatchObject({ action: 'attached', platformId: 7 });
    const fresh = await processIntent(
      bobsRow({ key: 'tito-XQ-2', params: { ...bobsRow().params, client_id: 'tito-XQ-2' } }),
      context(platform, { 'tito-XQ-1': ALICE }),
    );
    expect(fresh).toMatchObject({ action: 'created', platformId: 8 });
    expect(calls.filter((call) => call.startsWith('POST'))).toEqual([
      'POST /user tito-XQ-1',
      'POST /user tito-XQ-2',
    ]);
  });
});

describe('refuseOtherConferencesPerson', () => {
  const attached: PlatformUser = { id: 7, first_name: 'Alice', last_name: 'Ames', client_ids: ['tito-XQ-1'] };

  it("names this conference's earlier person under the key, not another conference's", async () => {
    const { platform } = platformWithAlice();
    const refused = refuseOtherConferencesPerson(
      attached,
      bobsRow(),
      context(platform, { 'tito-XQ-1': ALICE }),
      'bob@example.org',
    );
    await expect(refused).rejects.toMatchObject({ code: 'EVSYNC_ACCOUNT_OF_ANOTHER' });
    const message = await refused.catch((error: Error) => error.message);
    expect(message).toContain(
      `the key's earlier person in this conference holds it (last synced as "Alice Ames" <alice@example.org>, out of the conference since)`,
    );
    expect(message).not.toContain("another conference's person");
  });

  it('says what it knows when the ledger never sent the key here', async () => {
    const { platform } = platformWithAlice();
    const message = await refuseOtherConferencesPerson(
      attached,
      bobsRow(),
      context(platform, {}),
      'bob@example.org',
    ).catch((error: Error) => error.message);
    expect(message).toContain(
      "the platform has another person under the key (another conference's, or one this ledger no longer knows)",
    );
  });
});
