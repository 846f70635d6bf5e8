import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { tokenStore } from '../../../shared/http/api';
import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, signInAs } from '../../../testing/render-app';

const CANCELLED =
  'The email change was cancelled and every device was signed out. Choose a new password to sign in again.';
const CANCEL = { name: 'Cancel the change' } as const;
const REFUSED = 'This link is invalid, was used already or has expired.';

describe('/account/cancel-email-change', () => {
  it('asks for a click first: opening the link (a mail scanner does) changes nothing', async () => {
    renderApp('/account/cancel-email-change?code=from-the-notice');

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Was this change not yours?' }),
    ).toBeVisible();
    expect(screen.getByRole('button', CANCEL)).toBeEnabled();
    expect(fakeApi.requestsTo('cancelEmailChange')).toEqual([]);
  });

  it('cancels the change once, says to choose a new password, and signs this browser out', async () => {
    signInAs({ email: 'owner@example.com' });
    fakeApi.on('cancelEmailChange', { body: { message: CANCELLED } });
    const { user } = renderApp('/account/cancel-email-change?code=from-the-notice');
    await user.click(await screen.findByRole('button', CANCEL));

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Email change cancelled' }),
    ).toBeVisible();
    expect(await findToast('Email change cancelled')).toBeVisible();
    expect(screen.getByText(/Every device was signed out, this one too/)).toBeVisible();
    expect(screen.getByText(/Whoever asked for the change knows your password/)).toBeVisible();
    const card = screen.getByRole('main');
    expect(within(card).getByRole('link', { name: 'Choose a new password' })).toHaveAttribute(
      'href',
      '/auth/reset',
    );
    expect(within(card).getByRole('link', { name: 'Sign In' })).toHaveAttribute(
      'href',
      '/auth/login',
    );
    expect(fakeApi.requestsTo('cancelEmailChange').map((call) => call.body)).toEqual([
      { code: 'from-the-notice' },
    ]);

    // The server ended this browser's session too: the header no longer shows the member.
    expect(tokenStore.read()).toBeNull();
    const header = screen.getByRole('banner');
    expect(within(header).getByRole('link', { name: 'Sign In' })).toBeVisible();
    expect(within(header).queryByRole('link', { name: 'owner@example.com' })).toBeNull();
  });

  it('leads to the reset form with the "Choose a new password" button', async () => {
    fakeApi.on('cancelEmailChange', { body: { message: CANCELLED } });
    const { user, pathname } = renderApp('/account/cancel-email-change?code=from-the-notice');
    await user.click(await screen.findByRole('button', CANCEL));

    await user.click(await screen.findByRole('link', { name: 'Choose a new password' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Reset Password' })).toBeVisible();
    expect(pathname()).toBe('/auth/reset');
  });

  it("shows the server's refusal, says the link does not work and keeps the session", async () => {
    signInAs({ email: 'owner@example.com' });
    fakeApi.on('cancelEmailChange', errorReply(400, REFUSED));
    const { user } = renderApp('/account/cancel-email-change?code=used-already');
    await user.click(await screen.findByRole('button', CANCEL));

    expect(await findToast(REFUSED)).toBeVisible();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'This link does not work' }),
    ).toBeVisible();
    expect(screen.getByRole('link', { name: 'Go to Sign In' })).toHaveAttribute(
      'href',
      '/auth/login',
    );
    // Nothing changed on the server, so nothing is forgotten here.
    expect(tokenStore.read()).not.toBeNull();
  });

  it('says a link without its code does not work, without asking the server', async () => {
    renderApp('/account/cancel-email-change');

    expect(await findToast(REFUSED)).toBeVisible();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'This link does not work' }),
    ).toBeVisible();
    expect(screen.getByRole('link', { name: 'Go to Sign In' })).toHaveAttribute(
      'href',
      '/auth/login',
    );
    expect(fakeApi.requestsTo('cancelEmailChange')).toEqual([]);
  });

  it('lets the owner try again when the server could not answer, as the link still works', async () => {
    fakeApi.on('cancelEmailChange', errorReply(503, 'The server is busy. Please try again.'));
    const { user } = renderApp('/account/cancel-email-change?code=from-the-notice');
    await user.click(await screen.findByRole('button', CANCEL));

    expect(await findToast('The server is busy. Please try again.')).toBeVisible();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'The change is not cancelled yet' }),
    ).toBeVisible();

    fakeApi.on('cancelEmailChange', { body: { message: CANCELLED } });
    await user.click(screen.getByRole('button', { name: 'Try Again' }));

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Email change cancelled' }),
    ).toBeVisible();
    expect(fakeApi.requestsTo('cancelEmailChange')).toHaveLength(2);
  });

  it('says plainly when the old address could not be given back', async () => {
    const taken =
      'Every device was signed out, but your previous address is now used by another account, so we could not give it back. Write to support@kegelcoach.app and we will sort it out.';
    fakeApi.on('cancelEmailChange', errorReply(409, taken));
    const { user } = renderApp('/account/cancel-email-change?code=from-the-notice');
    await user.click(await screen.findByRole('button', CANCEL));

    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'Your address could not be given back',
      }),
    ).toBeVisible();
    expect(screen.getAllByText(taken).length).toBeGreaterThan(0);
  });
});
