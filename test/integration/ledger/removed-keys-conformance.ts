import { describe, expect, it } from 'vitest';
import type { Ledger } from '../../../src/ledger/ledger.js';
import type { IntentResultInput } from '../../../src/model/result-records.js';
import type { ConformanceContext } from './ledger-conformance.js';

const alice = {
  client_id: 'rk-1',
  'user[first_name]': 'Alice',
  'user[svc_auth_attributes][email]': 'a@x.org',
};
const bob = { client_id: 'rk-1', 'user[first_name]': 'Bob', 'user[svc_auth_attributes][email]': 'b@x.org' };

type UserResult = Omit<IntentResultInput, 'runId' | 'kind'>;

/** One completed mirror run of `ledger` with these user results; its id. */
async function recordRun(ledger: Ledger, ...results: UserResult[]): Promise<string> {
  const run = await ledger.createRun({ jobName: 'rk', mode: 'mirror' });
  await ledger.recordResults(results.map((r) => ({ runId: run.id, kind: 'user' as const, ...r })));
  await ledger.finishRun(run.id, 'completed');
  return run.id;
}

/**
 * The person last sent under a key a run removed (docs/ledger.md, "Removed keys"): the
 * platform keeps the client_id on that account, so a create under the key is checked against it.
 */
export function describeRemovedKeysConformance(context: ConformanceContext): void {
  describe('removed keys', () => {
    it('name the person last sent under them, not a refused row, until the key is synced again', async () => {
      const root = context.ledger();
      const l = root.forConference(await root.conferenceFor('https://removed-keys.example', null));
      const other = root.forConference(await root.conferenceFor('https://removed-other.example', null));
      const created = await recordRun(l, {
        key: 'rk-1',
        action: 'created',
        hash: 'h1',
        platformId: 7,
        params: alice,
      });
      await recordRun(l, { key: 'rk-2', action: 'created', hash: 'h2', platformId: 8, params: alice });
      // A key still synced is `syncedParams`' to name.
      expect(await l.removedKeysLastSent('user', ['rk-1', 'rk-2', 'rk-new'])).toEqual(new Map());

      const deleted = await recordRun(l, { key: 'rk-1', action: 'deleted', platformId: 7 });
      // Bob's row refused under the key: Alice stays the person last sent.
      const refused = await recordRun(l, { key: 'rk-1', action: 'failed', errorCode: 'X', params: bob });
      expect(Object.fromEntries(await l.removedKeysLastSent('user', ['rk-1', 'rk-2', 'rk-new']))).toEqual({
        'rk-1': alice,
      });
      // Retention keeps what names her, and the removal: a prune never makes the key look new.
      for (const run of [created, deleted, refused])
        await l.pruning().pruneRun(run, { rule: 'test', countsByKind: {} });
      expect(await l.results(refused)).toEqual([]);
      expect(Object.fromEntries(await l.removedKeysLastSent('user', ['rk-1', 'rk-2', 'rk-new']))).toEqual({
        'rk-1': alice,
      });
      expect([...(await l.lastRemovals('user', ['rk-1'])).keys()]).toEqual(['rk-1']);
      // Another conference's state is its own.
      expect(await other.removedKeysLastSent('user', ['rk-1'])).toEqual(new Map());

      // Synced again (the same person back): `syncedParams` names it.
      await recordRun(l, { key: 'rk-1', action: 'created', hash: 'h3', platformId: 7, params: alice });
      expect(await l.removedKeysLastSent('user', ['rk-1'])).toEqual(new Map());
    });

    it("name a merged person's other key once the user is deleted under the first", async () => {
      const root = context.ledger();
      const l = root.forConference(await root.conferenceFor('https://removed-merged.example', null));
      const other = root.forConference(
        await root.conferenceFor('https://removed-merged-other.example', null),
      );
      const record = (...results: UserResult[]): Promise<string> => recordRun(l, ...results);
      const ann = { ...alice, client_id: 'rm-1' };
      const merged = { key: 'rm-1', action: 'created', hash: 'h1', platformId: 9, params: ann } as const;
      const created = await record({ ...merged, aliases: ['rm-2'] });
      // While the user is synced, its account was deleted under no key.
      expect(await l.deletedAccountsLastSent('user', ['rm-1', 'rm-2'])).toEqual(new Map());

      // Deleted under its first key: the other keeps its id-map row, and names her.
      const deleted = await record({ key: 'rm-1', action: 'deleted', platformId: 9 });
      expect(Object.fromEntries(await l.removedKeysLastSent('user', ['rm-1', 'rm-2']))).toEqual({
        'rm-1': ann,
      });
      expect(Object.fromEntries(await l.deletedAccountsLastSent('user', ['rm-1', 'rm-2', 'rm-new']))).toEqual(
        {
          'rm-2': ann,
        },
      );
      for (const run of [created, deleted])
        await l.pruning().pruneRun(run, { rule: 'test', countsByKind: {} });
      expect(Object.fromEntries(await l.deletedAccountsLastSent('user', ['rm-2']))).toEqual({ 'rm-2': ann });
      expect(await other.deletedAccountsLastSent('user', ['rm-2'])).toEqual(new Map());

      // The account synced again under its first key: the other key is hers again.
      await record(merged);
      expect(await l.deletedAccountsLastSent('user', ['rm-1', 'rm-2'])).toEqual(new Map());
    });
  });
}
