import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, tokenExpiringInAnHour } from '../../../testing/render-app';

const bytes = (text: string) => new TextEncoder().encode(text).buffer;

/** What navigator.credentials.get() resolves with once a passkey has signed. */
const signedAssertion = {
  id: 'Y3JlZA',
  rawId: bytes('cred'),
  type: 'public-key',
  authenticatorAttachment: 'platform',
  response: {
    clientDataJSON: bytes('{"type":"webauthn.get"}'),
    authenticatorData: bytes('authenticator data'),
    signature: bytes('signature'),
    userHandle: bytes('member'),
  },
  getClientExtensionResults: () => ({}),
};

const OPTIONS = { challenge: 'Y2hhbGxlbmdl', rpId: 'localhost', userVerification: 'preferred' };

/** A browser with WebAuthn (jsdom has none), with or without passkeys in autofill. */
function stubWebAuthn({ autofill }: { autofill: boolean }) {
  const get = vi.fn<(options: CredentialRequestOptions) => Promise<unknown>>();
  vi.stubGlobal(
    'PublicKeyCredential',
    Object.assign(function PublicKeyCredential() {}, {
      isConditionalMediationAvailable: () => Promise.resolve(autofill),
    }),
  );
  Object.defineProperty(navigator, 'credentials', { value: { get }, configurable: true });
  return get;
}

describe('/auth/login with passkeys', () => {
  beforeEach(() => {
    fakeApi.on('passkeySignInOptions', { body: OPTIONS });
    fakeApi.on('signInWithPasskey', {
      body: { accessToken: tokenExpiringInAnHour(), refreshToken: tokenExpiringInAnHour() },
    });
    fakeApi.on('readProfile', {
      body: { id: 'm1', email: 'member@example.com', subscriptionEndDate: null, hasPassword: true },
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    Reflect.deleteProperty(navigator, 'credentials');
  });

  it('signs in with the button: the dialog, then the signed challenge, and no password', async () => {
    const get = stubWebAuthn({ autofill: false });
    get.mockResolvedValue(signedAssertion);
    const { user, pathname } = renderApp('/auth/login');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));

    expect(await findToast('Successfully authenticated')).toBeVisible();
    expect(await screen.findByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    expect(pathname()).toBe('/dashboard');
    expect(get).toHaveBeenCalledTimes(1);
    expect(get.mock.calls[0]?.[0]).not.toHaveProperty('mediation');
    expect(fakeApi.requestsTo('signInWithPasskey')[0]?.body).toEqual({
      response: {
        id: 'Y3JlZA',
        rawId: 'Y3JlZA',
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: {
          clientDataJSON: expect.any(String),
          authenticatorData: expect.any(String),
          signature: expect.any(String),
          userHandle: expect.any(String),
        },
      },
    });
    expect(fakeApi.requestsTo('login')).toEqual([]);
  });

  it('offers passkeys in the email field’s autofill and signs in when one is picked', async () => {
    const get = stubWebAuthn({ autofill: true });
    get.mockResolvedValue(signedAssertion);
    const { pathname } = renderApp('/auth/login');

    expect(await screen.findByRole('textbox', { name: 'Email' })).toHaveAttribute(
      'autocomplete',
      'username webauthn',
    );
    expect(await findToast('Successfully authenticated')).toBeVisible();
    expect(await screen.findByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    expect(pathname()).toBe('/dashboard');
    expect(get.mock.calls.some(([options]) => options.mediation === 'conditional')).toBe(true);
  });

  it('says so when the dialog is closed, and stays on the page', async () => {
    const get = stubWebAuthn({ autofill: false });
    get.mockRejectedValue(
      new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError'),
    );
    const { user, pathname } = renderApp('/auth/login');
    await user.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));

    expect(await findToast('The passkey dialog was closed before it finished.')).toBeVisible();
    expect(pathname()).toBe('/auth/login');
    expect(fakeApi.requestsTo('signInWithPasskey')).toEqual([]);
  });

  it('shows no passkey button where the browser has no WebAuthn', async () => {
    renderApp('/auth/login');
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Sign in with a passkey' })).toBeNull();
  });
});
