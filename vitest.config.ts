import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

import { configDefaults, defineConfig } from 'vitest/config';

import { catalogModules } from './apps/web/scripts/catalog-modules.ts';

/**
 * The web's test files that replace a module of the app (`vi.mock`). Under `isolate: false` a
 * replaced module stays in the worker's module cache for the files after it: the desk's tests once
 * drew page-modules.test.tsx's stand-in frame, depending on the order the files ran in. These run
 * isolated instead, each with a fresh module cache.
 */
const webTestsReplacingModules = readdirSync('apps/web/src', { recursive: true, encoding: 'utf8' })
  .filter((file) => /\.test\.tsx?$/.test(file))
  .map((file) => `apps/web/src/${file}`)
  .filter((file) => /\bvi\.(?:do)?mock\(/.test(readFileSync(file, 'utf8')));

// What both web projects share.
const webTestProject = {
  // Pages are rendered into a DOM and driven as a person would (Testing Library); the API answers
  // through the HTTP client's fetch (apps/web/src/testing/fake-api.ts).
  environment: 'jsdom',
  setupFiles: ['apps/web/src/testing/setup.ts'],
  // A page test renders, types and waits as a person would: on a loaded 2-core machine (CI runs
  // the API's files and the browser journeys beside these) a whole journey took over Vitest's
  // default 5 s. What each step waits for is still bounded by Testing Library's own timeouts
  // (15 s, src/testing/setup.ts).
  testTimeout: 30_000,
} as const;

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
        // The catalogs compiled by namespace, as the web build does (`virtual:catalog/<name>`).
        plugins: [catalogModules()],
        test: {
          name: 'web',
          include: ['apps/web/src/**/*.test.{ts,tsx}'],
          exclude: [...configDefaults.exclude, ...webTestsReplacingModules],
          environment: webTestProject.environment,
          setupFiles: webTestProject.setupFiles,
          testTimeout: webTestProject.testTimeout,
          // Each test renders a fresh app with its own query client and router, and setup.ts
          // resets the DOM, storage and fake API after every test: a worker can keep its jsdom
          // and loaded modules for the next file.
          isolate: false,
        },
      },
      {
        // The catalogs compiled by namespace, as the web build does (`virtual:catalog/<name>`).
        plugins: [catalogModules()],
        test: {
          name: 'web-mocks',
          include: webTestsReplacingModules,
          environment: webTestProject.environment,
          setupFiles: webTestProject.setupFiles,
          testTimeout: webTestProject.testTimeout,
        },
      },
      {
        // A build of the web app, measured: how much JavaScript each page loads first
        // (apps/web/scripts/initial-javascript.mjs). It builds into a folder of its own.
        test: {
          name: 'web-build',
          include: ['apps/web/scripts/**/*.test.ts'],
          // What `vite build` sees from npm: Vitest's own 'test' would build React's development
          // code (and the JSX dev runtime), twice the weight.
          env: { NODE_ENV: 'production' },
          testTimeout: 30_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'api',
          include: ['apps/api/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'apps/api/test/cluster/**'],
          globalSetup: ['apps/api/test/support/template-databases.ts'],
          // Processes, not worker threads: argon2's native addon aborts the whole run when a
          // thread is ended while a hash is still in flight.
          pool: 'forks',
          // A file spends most of its time waiting on a database, a mail server or a timer, so
          // even two cores take two files at once.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          // Each file builds its own server and database and src/ keeps no state in its modules,
          // so a worker keeps what it loaded for the next file: about 40 % less CPU time here.
          isolate: false,
          // A maxWorkers of its own needs a group of its own: these files run after the others.
          sequence: { groupOrder: 1 },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Two built server processes behind HAProxy on PostgreSQL and Redis (`npm run cluster`):
        // its own part of `npm test` (`npm run test:cluster`), after the others, as it starts
        // real processes and wants the build, TEST_DATABASE_URL, TEST_REDIS_URL and HAProxy.
        test: {
          name: 'cluster',
          include: ['apps/api/test/cluster/**/*.test.ts'],
          pool: 'forks',
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
