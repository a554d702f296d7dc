import type { SharedAccounts } from '../collect/merge-people.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { SyncPlatform } from '../processors/sync-platform.js';
import { isStatus } from '../processors/process-outcome.js';

/**
 * The id map's shared accounts, each confirmed on the platform before a merge refuses its
 * people (`PeopleMerger`, docs/sync-engine.md, "One person, many sources"): one read of the
 * first key's user, and only for a group the sources split, which is rare. Without a
 * platform (`evsync plan`), the id map is believed.
 */
export function sharedAccountsOf(
  ledger: Pick<Ledger, 'keysSharingIds'>,
  platform?: Pick<SyncPlatform, 'users'>,
): SharedAccounts {
  return {
    groups: () => ledger.keysSharingIds('user'),
    ...(platform?.users.get
      ? {
          confirm: async (keys: readonly string[]) => {
            try {
              const user = await platform.users.get!({ clientId: keys[0]! });
              // A platform that lists no client_ids gives nothing to tell: the id map stands.
              return user.client_ids === undefined || keys.every((key) => user.client_ids!.includes(key));
            } catch (error) {
              if (isStatus(error, 404)) return false;
              throw error;
            }
          },
        }
      : {}),
  };
}
