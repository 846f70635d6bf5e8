import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { serveAppleScript, serveGoogleScript } from '../../../testing/provider-scripts';
import { findToast, renderApp, tokenExpiringInAnHour } from '../../../testing/render-app';

function tokenPair() {
  return { accessToken: tokenExpiringInAnHour(), refreshToken: tokenExpiringInAnHour() };
}

function answerProviders(scripts: { google?: string; apple?: string }): void {
  fakeApi.on('listSocialProviders', {
    body: {
      google: scripts.google ? { clientId: 'google-client', scriptUrl: scripts.google } : null,
      apple: scripts.apple
        ? {
            clientId: 'apple-client',
            scriptUrl: scripts.apple,
            redirectUri: 'http://localhost:3000/auth/login',
          }
        : null,
    },
  });
}

function answerProfile(email: string): void {
  fakeApi.on('readProfile', {
    body: { id: 'm1', email, subscriptionEndDate: null, hasPassword: false },
  });
}

afterEach(() => {
  delete window.google;
  delete window.AppleID;
});

describe('Continue with Google', () => {
  it('asks for openid, profile and email, sends the code to the API and lands on /dashboard', async () => {
    let requestedScope = '';
    answerProviders({
      google: serveGoogleScript(({ scope, state }) => {
        requestedScope = scope;
        return { code: 'google-code', state };
      }),
    });
    fakeApi.on('signInWithGoogle', { body: tokenPair() });
    answerProfile('google.person@example.com');
    const { user, pathname } = renderApp('/auth/login');
    await user.click(await screen.findByRole('button', { name: 'Continue with Google' }));

    expect(await findToast('Successfully authenticated')).toBeVisible();
    expect(await screen.findByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    expect(pathname()).toBe('/dashboard');
    expect(requestedScope).toBe('openid profile email');
    expect(fakeApi.requestsTo('signInWithGoogle')[0]?.body).toEqual({
      code: 'google-code',
      clientType: 'WEB',
    });
  });

  it('leaves the person on the login page, told so, when they cancel', async () => {
    answerProviders({ google: serveGoogleScript(() => ({ error: 'access_denied' })) });
    const { user, pathname } = renderApp('/auth/login');
    await user.click(await screen.findByRole('button', { name: 'Continue with Google' }));

    expect(await findToast('Google sign-in was cancelled.')).toBeVisible();
    expect(screen.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible();
    expect(pathname()).toBe('/auth/login');
    expect(fakeApi.requestsTo('signInWithGoogle')).toEqual([]);
  });

  it('refuses an answer that does not carry the state the page sent', async () => {
    answerProviders({
      google: serveGoogleScript(() => ({ code: 'google-code', state: 'someone-elses' })),
    });
    const { user } = renderApp('/auth/login');
    await user.click(await screen.findByRole('button', { name: 'Continue with Google' }));

    expect(await findToast('Google sign-in failed. Please try again.')).toBeVisible();
    expect(fakeApi.requestsTo('signInWithGoogle')).toEqual([]);
  });

  it("shows the server's refusal as an error and stays on the page", async () => {
    answerProviders({ google: serveGoogleScript(({ state }) => ({ code: 'google-code', state })) });
    fakeApi.on('signInWithGoogle', errorReply(403, 'Not verified'));
    const { user, pathname } = renderApp('/auth/register');
    await user.click(await screen.findByRole('button', { name: 'Continue with Google' }));

    expect(await findToast('Not verified')).toBeVisible();
    expect(pathname()).toBe('/auth/register');
  });
});

describe('Continue with Apple', () => {
  it("signs in with the server's nonce and the identity token, then lands on /dashboard", async () => {
    let signedIn = { nonce: '', scope: '' };
    answerProviders({
      apple: serveAppleScript(({ state, nonce, scope }) => {
        signedIn = { nonce, scope };
        return { authorization: { code: 'apple-code', id_token: 'apple-identity-token', state } };
      }),
    });
    fakeApi.on('issueAppleNonce', { body: { nonce: 'server-nonce' } });
    fakeApi.on('signInWithApple', { body: tokenPair() });
    answerProfile('apple.person@example.com');
    const { user, pathname } = renderApp('/auth/register');
    const button = await screen.findByRole('button', { name: 'Continue with Apple' });
    // The nonce is fetched ahead, so the popup can open during the click.
    await expect.poll(() => fakeApi.requestsTo('issueAppleNonce').length).toBe(1);
    await user.click(button);

    expect(await findToast('Successfully authenticated')).toBeVisible();
    expect(await screen.findByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    expect(pathname()).toBe('/dashboard');
    expect(signedIn).toEqual({ nonce: 'server-nonce', scope: 'email' });
    expect(fakeApi.requestsTo('signInWithApple')[0]?.body).toEqual({
      token: 'apple-identity-token',
    });
  });

  it('says so when the person closes the popup, and sends nothing', async () => {
    answerProviders({
      // Apple's script rejects with an object whose `error` names what happened.
      apple: serveAppleScript(() =>
        Promise.reject(Object.assign(new Error('closed'), { error: 'popup_closed_by_user' })),
      ),
    });
    fakeApi.on('issueAppleNonce', { body: { nonce: 'server-nonce' } });
    const { user } = renderApp('/auth/login');
    const button = await screen.findByRole('button', { name: 'Continue with Apple' });
    await expect.poll(() => fakeApi.requestsTo('issueAppleNonce').length).toBe(1);
    await user.click(button);

    expect(await findToast('Apple sign-in was closed before it finished.')).toBeVisible();
    expect(fakeApi.requestsTo('signInWithApple')).toEqual([]);
  });
});

describe('the social buttons', () => {
  it('are left out, with their divider, when no provider is offered', async () => {
    renderApp('/auth/login');
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeVisible();
    await expect.poll(() => fakeApi.requestsTo('listSocialProviders').length).toBeGreaterThan(0);
    await expect.poll(() => screen.queryByText('or', { exact: true })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Continue with Google' })).not.toBeInTheDocument();
  });
});
