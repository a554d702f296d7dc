import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Unit tests are fast and need nothing running; integration tests talk to real servers
// (sandbox over HTTP, Redis, PostgreSQL, MariaDB) and may take longer.
export default defineConfig({
  test: {
    // Embedded ledgers made by tests stop their servers soon after their last client.
    env: { EVSYNC_LEDGER_IDLE_SECONDS: '3' },
    // One file more than there are cores: the e2e files mostly wait on the processes they
    // spawn and on platforms' rate limits. On the 2-core machine, quiet, the whole suite
    // took 878 s with two files at a time (without its 6 browser files) and 705 s with
    // three (all 273 files); vitest's default there, one, took 820 s for the integration
    // tests alone against 511 s with two.
    maxWorkers: availableParallelism() + 1,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          testTimeout: 10_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
