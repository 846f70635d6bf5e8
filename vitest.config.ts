import { defineConfig } from 'vitest/config';

// Unit and integration tests of every workspace. The API's run on PGlite always and also on
// PostgreSQL when TEST_DATABASE_URL is set (see apps/api/test/support/test-databases.ts).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'contract',
          include: ['packages/contract/src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'web',
          include: ['apps/web/src/**/*.test.{ts,tsx}'],
          // Pages are rendered into a DOM and driven as a person would (Testing Library); the
          // API answers through the HTTP client's fetch (apps/web/src/testing/fake-api.ts).
          environment: 'jsdom',
          setupFiles: ['apps/web/src/testing/setup.ts'],
        },
      },
      {
        test: {
          name: 'api',
          include: ['apps/api/test/**/*.test.ts'],
          globalSetup: ['apps/api/test/support/template-databases.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
