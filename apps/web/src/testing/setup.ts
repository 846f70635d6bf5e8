// Runs before every web test file: DOM matchers, the fake API behind the app's HTTP client, and
// a clean slate (DOM, storage, answers) after each test.
import '@testing-library/jest-dom/vitest';

import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

import type * as AppApi from '../shared/http/api';
import { fakeApi } from './fake-api';

// The first visit to a lazy page transforms its module graph, which takes a moment in Vitest, and
// CI runs these files beside the API's and the browser journeys on two cores: a member page's
// first draw once took over 9 s there. What a page shows is the test; how soon is the bench's.
configure({ asyncUtilTimeout: 15_000 });

// The app's client, made as in shared/http/api.ts but with the fake API as its fetch.
vi.mock('../shared/http/api', async (importOriginal) => {
  const actual = await importOriginal<typeof AppApi>();
  const { createApiClient } = await import('../shared/http/api-client');
  const { env } = await import('../config/env');
  let onUnauthorized = (): void => {};
  let onRenewalFailed = (_message: string): void => {};
  return {
    ...actual,
    setUnauthorizedHandler: (handler: () => void) => {
      onUnauthorized = handler;
    },
    setRenewalFailedHandler: (handler: (message: string) => void) => {
      onRenewalFailed = handler;
    },
    api: createApiClient({
      baseUrl: env.apiBaseUrl,
      tokens: actual.tokenStore,
      onUnauthorized: () => onUnauthorized(),
      onRenewalFailed: (message) => onRenewalFailed(message),
      fetch: fakeApi.fetch,
    }),
  };
});

afterEach(() => {
  cleanup();
  fakeApi.reset();
  // Unit tests of plain functions run in Node, without a DOM (their `@vitest-environment node`).
  if (typeof localStorage !== 'undefined') localStorage.clear();
  vi.restoreAllMocks();
});
