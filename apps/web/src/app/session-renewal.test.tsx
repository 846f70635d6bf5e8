import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { tokenStore } from '../shared/http/api';
import { RENEWAL_FAILED_MESSAGE } from '../shared/http/api-client';
import { errorReply, fakeApi } from '../testing/fake-api';
import {
  findToast,
  queryToast,
  renderApp,
  signInAs,
  tokenExpiringInAnHour,
} from '../testing/render-app';

/** An unsigned JWT that expired a minute ago. */
function expiredToken(): string {
  const part = (value: object): string => btoa(JSON.stringify(value)).replace(/=+$/, '');
  return `${part({ alg: 'HS256' })}.${part({ exp: Math.floor(Date.now() / 1000) - 60 })}.x`;
}

/** A member whose access token has expired while the refresh token lives on. */
function signInWithExpiredAccessToken() {
  signInAs();
  const pair = { accessToken: expiredToken(), refreshToken: tokenExpiringInAnHour() };
  tokenStore.write(pair);
  return pair;
}

describe('renewing the session of a member', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps the member signed in when the server refuses the renewal for now, and says so', async () => {
    const pair = signInWithExpiredAccessToken();
    fakeApi.on('refresh', {
      ...errorReply(429, 'Too many requests. Please try again later.'),
      headers: { 'retry-after': '60' },
    });
    const { pathname } = renderApp('/dashboard');

    expect(await findToast(RENEWAL_FAILED_MESSAGE)).toBeVisible();
    expect(pathname()).toBe('/dashboard');
    expect(tokenStore.read()).toEqual(pair);
    expect(fakeApi.requestsTo('readProfile')).toEqual([]);
  });

  it('renews after a moment of trouble without a word', async () => {
    // The wait before the second try runs on a fake clock.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    signInWithExpiredAccessToken();
    let refreshes = 0;
    const renewed = { accessToken: tokenExpiringInAnHour(), refreshToken: tokenExpiringInAnHour() };
    fakeApi.on('refresh', () => {
      refreshes += 1;
      return refreshes === 1
        ? { ...errorReply(503, 'The server is busy.'), headers: { 'retry-after': '0' } }
        : { body: renewed };
    });
    renderApp('/dashboard');

    await vi.waitFor(() => expect(refreshes).toBe(1), { interval: 5 });
    expect(queryToast(RENEWAL_FAILED_MESSAGE)).toBeNull();
    // A second on the fake clock at each look, until the member area shows.
    await vi.waitFor(
      async () => {
        await vi.advanceTimersByTimeAsync(1_000);
        expect(screen.getByRole('navigation', { name: 'Member Settings' })).toBeVisible();
      },
      // waitFor's own 1 s is real time: on a loaded machine the page takes longer than that to
      // draw after the renewal, whatever the fake clock says.
      { interval: 5, timeout: 10_000 },
    );
    expect(refreshes).toBe(2);
    expect(tokenStore.read()).toEqual(renewed);
    expect(queryToast(RENEWAL_FAILED_MESSAGE)).toBeNull();
  });

  it('signs the member out when the server has ended the session (401)', async () => {
    signInWithExpiredAccessToken();
    fakeApi.on('refresh', errorReply(401, 'Your session has ended. Please sign in again.'));
    const { pathname } = renderApp('/dashboard');

    await screen.findByRole('heading', { level: 1, name: 'Sign In' });
    expect(pathname()).toBe('/auth/login');
    expect(tokenStore.read()).toBeNull();
  });
});
