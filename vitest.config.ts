import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Unit tests are fast and need nothing running; integration tests talk to real servers
// (sandbox over HTTP, Redis, PostgreSQL, MariaDB) and may take longer.
export default defineConfig({
  test: {
    // Embedded ledgers made by tests stop their servers soon after their last client.
    env: { EVSYNC_LEDGER_IDLE_SECONDS: '3' },
    // Two files at a time even on two cores: the e2e files mostly wait on the processes
    // they spawn (vitest's default there is one, which left a core idle: 820 s of
    // integration tests against 511 s with two, measured on this machine).
    maxWorkers: Math.max(2, availableParallelism() - 1),
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
