import { unsubscribeMessages } from '@kegel/contract';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { renderApp } from '../../../testing/render-app';

const UNSUBSCRIBE = { name: 'Unsubscribe' } as const;
const ASKS = 'Stop the reminders before your premium ends?';

describe('/account/unsubscribe', () => {
  it('asks for a click first: opening the link (a mail scanner does) turns nothing off', async () => {
    renderApp('/account/unsubscribe?token=from-the-mail');
    expect(await screen.findByRole('heading', { level: 1, name: ASKS })).toBeVisible();
    expect(screen.getByRole('button', UNSUBSCRIBE)).toBeEnabled();
    expect(fakeApi.requestsTo('unsubscribe')).toEqual([]);
  });

  it('turns reminders off with the token of the link, signed out, and says so', async () => {
    fakeApi.on('unsubscribe', { body: { message: unsubscribeMessages.done } });
    const { user } = renderApp('/account/unsubscribe?token=from-the-mail');
    await user.click(await screen.findByRole('button', UNSUBSCRIBE));

    expect(
      await screen.findByRole('heading', { level: 1, name: 'You are unsubscribed' }),
    ).toBeVisible();
    expect(screen.getByText(/turn reminders back on in Account Settings/)).toBeVisible();
    const requests = fakeApi.requestsTo('unsubscribe');
    expect(requests.map((request) => request.query.get('token'))).toEqual(['from-the-mail']);
    expect(requests.map((request) => request.headers.get('authorization'))).toEqual([null]);
  });

  it('says the link does not work when the server refuses its token', async () => {
    fakeApi.on('unsubscribe', errorReply(400, unsubscribeMessages.invalidLink));
    const { user } = renderApp('/account/unsubscribe?token=tampered');
    await user.click(await screen.findByRole('button', UNSUBSCRIBE));
    expect(
      await screen.findByRole('heading', { level: 1, name: 'This link does not work' }),
    ).toBeVisible();
    // The card says why (the error toast may say it too).
    expect(
      within(screen.getByRole('main')).getByText(unsubscribeMessages.invalidLink),
    ).toBeVisible();
  });

  it('says the link does not work without a token', async () => {
    renderApp('/account/unsubscribe');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'This link does not work' }),
    ).toBeVisible();
    expect(screen.queryByRole('button', UNSUBSCRIBE)).toBeNull();
  });
});
