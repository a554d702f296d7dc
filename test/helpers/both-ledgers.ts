import { afterAll, beforeAll, describe } from 'vitest';
import { postgresSchema, serviceAvailable } from './services.js';

/**
 * Declares the same tests once on the embedded ledger and once on PostgreSQL (a schema of
 * their own, dropped after), for a spawned evsync: `body` gets the ledger's name and the
 * environment that selects it. Without PostgreSQL the second set skips loudly (fails with CI=true).
 */
export async function onBothLedgers(
  prefix: string,
  body: (ledger: string, env: () => NodeJS.ProcessEnv) => void,
): Promise<void> {
  body('embedded', () => ({}));
  const postgresUp = await serviceAvailable('postgres');
  describe.runIf(postgresUp)('PostgreSQL', () => {
    let env: NodeJS.ProcessEnv = {};
    let drop: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ env, drop } = await postgresSchema(prefix));
    });
    afterAll(async () => drop());
    body('PostgreSQL', () => env);
  });
}
