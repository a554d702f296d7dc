import { defineConfig } from 'vitest/config';

// Unit tests are fast and need nothing running; integration tests talk to real servers
// (sandbox over HTTP, Redis, PostgreSQL, MariaDB) and may take longer.
export default defineConfig({
  test: {
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
