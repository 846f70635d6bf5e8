import { env } from '../../config/env';
import { createApiClient } from './api-client';
import { followServerClock } from './dev-clock';
import {
  ACCESS_TOKEN_KEY,
  createMemoryStorage,
  createTokenStore,
  REFRESH_TOKEN_KEY,
} from './token-store';

/**
 * The build prerenders the visitors' pages in Node (src/prerender.tsx), where there is no window
 * and no one is signed in: there the tokens are kept in memory, and there are none.
 */
const isBrowser = typeof window !== 'undefined';

/**
 * The app's token store (localStorage) and API client; the app sets what a 401 does and how a
 * renewal that keeps failing is told.
 */
export const tokenStore = createTokenStore(isBrowser ? window.localStorage : createMemoryStorage());

let unauthorizedHandler: () => void = () => {};

export function setUnauthorizedHandler(handler: () => void): void {
  unauthorizedHandler = handler;
}

let renewalFailedHandler: (message: string) => void = () => {};

export function setRenewalFailedHandler(handler: (message: string) => void): void {
  renewalFailedHandler = handler;
}

// Before the first call: the page's own answer may have said the development clock moved.
if (isBrowser) followServerClock();

export const api = createApiClient({
  baseUrl: env.apiBaseUrl,
  // Each answer may say the development clock moved (dev-clock.ts); production's never do.
  fetch: async (input, init) => {
    const response = await fetch(input, init);
    if (isBrowser) followServerClock();
    return response;
  },
  tokens: tokenStore,
  onUnauthorized: () => unauthorizedHandler(),
  onRenewalFailed: (message) => renewalFailedHandler(message),
});

// Another tab signed in or out: follow it.
if (isBrowser) {
  window.addEventListener('storage', (event) => {
    if (event.key === null || event.key === ACCESS_TOKEN_KEY || event.key === REFRESH_TOKEN_KEY) {
      tokenStore.notifyExternalChange();
    }
  });
}
