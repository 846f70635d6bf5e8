import { signInNoticeMessages } from '@kegel/contract';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { tokenStore } from '../../../shared/http/api';
import { errorReply, fakeApi } from '../../../testing/fake-api';
import { renderApp, signInAs } from '../../../testing/render-app';

const SECURE = { name: 'Secure my account' } as const;

describe('/account/sign-in-not-me', () => {
  it('asks for a click first: opening the link (a mail scanner does) changes nothing', async () => {
    renderApp('/account/sign-in-not-me?code=from-the-notice');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Was this sign-in not you?' }),
    ).toBeVisible();
    expect(screen.getByRole('button', SECURE)).toBeEnabled();
    expect(fakeApi.requestsTo('reportSignIn')).toEqual([]);
  });

  it('secures the account once, says a reset link is on its way, and signs this browser out', async () => {
    signInAs({ email: 'owner@example.com' });
    fakeApi.on('reportSignIn', { body: { message: signInNoticeMessages.secured } });
    const { user } = renderApp('/account/sign-in-not-me?code=from-the-notice');
    await user.click(await screen.findByRole('button', SECURE));

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Every device was signed out' }),
    ).toBeVisible();
    expect(screen.getByText(/We emailed you a link to choose a new one/)).toBeVisible();
    expect(fakeApi.requestsTo('reportSignIn').map((call) => call.body)).toEqual([
      { code: 'from-the-notice' },
    ]);
    expect(tokenStore.read()).toBeNull();
    const header = screen.getByRole('banner');
    expect(within(header).getByRole('link', { name: 'Sign In' })).toBeVisible();
  });

  it('says the link does not work when the server refuses the code', async () => {
    fakeApi.on('reportSignIn', errorReply(400, signInNoticeMessages.linkInvalid));
    const { user } = renderApp('/account/sign-in-not-me?code=used-already');
    await user.click(await screen.findByRole('button', SECURE));
    expect(
      await screen.findByRole('heading', { level: 1, name: 'This link does not work' }),
    ).toBeVisible();
  });
});
