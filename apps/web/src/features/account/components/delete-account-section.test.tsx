import { deleteAccountMessages, type PurchaseItem, twoStepMessages } from '@kegel/contract';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { formatLongDate } from '../../../shared/format/dates';
import { tokenStore } from '../../../shared/http/api';
import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, queryToast, renderApp, signInAs } from '../../../testing/render-app';

const DAY = 24 * 60 * 60 * 1000;
const APP_STORE_ACTIVE =
  'You have an active App Store subscription. Deleting your account does not cancel it: cancel it on your iPhone in Settings → your name → Subscriptions, or confirm that you will keep it.';
const SIGN_IN_AGAIN =
  'For your safety, sign in again (within the last 10 minutes) before deleting your account';
const APP_STORE_BOX = 'I understand that my App Store subscription continues until I cancel it';

function purchase(item: Partial<PurchaseItem>): PurchaseItem {
  return {
    name: 'Premium — 1 year',
    provider: 'Stripe',
    createdAt: new Date(Date.now() - 30 * DAY).toISOString(),
    expiresAt: new Date(Date.now() + 300 * DAY).toISOString(),
    ...item,
  };
}

async function openDeleteForm(purchases: PurchaseItem[] = []) {
  fakeApi.on('listSessions', { body: { data: [] } });
  fakeApi.on('listPurchases', { body: { data: purchases } });
  const view = renderApp('/dashboard/settings');
  await view.user.click(await screen.findByRole('button', { name: 'Delete account' }));
  const formElement = screen.getByRole('form', { name: 'Delete account' });
  return { ...view, form: within(formElement), formElement };
}

describe('/dashboard/settings, Delete account', () => {
  it('says what deleting does, and sends nothing until DELETE is typed', async () => {
    signInAs();
    const { user, form } = await openDeleteForm();
    expect(form.getByText(/signed out everywhere/)).toBeVisible();
    expect(
      form.getByText(/purchase records are kept for accounting, tied to no one/),
    ).toBeVisible();
    expect(form.getByText(/can register again later/)).toBeVisible();

    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.type(form.getByLabelText('Type DELETE to confirm'), 'delete');
    await user.click(form.getByRole('button', { name: 'Delete account' }));

    expect(form.getByLabelText('Type DELETE to confirm')).toHaveAccessibleDescription(
      'Type DELETE to confirm',
    );
    expect(fakeApi.requestsTo('deleteAccount')).toEqual([]);
  });

  it('sends the password, goes to /account/deleted and forgets the session', async () => {
    signInAs({ email: 'leaving@example.com' });
    fakeApi.on('deleteAccount', { body: { message: 'Your account has been deleted' } });
    const { user, form, pathname } = await openDeleteForm();
    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.type(form.getByLabelText('Type DELETE to confirm'), 'DELETE');
    await user.click(form.getByRole('button', { name: 'Delete account' }));

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Your account has been deleted' }),
    ).toBeVisible();
    expect(pathname()).toBe('/account/deleted');
    expect(await findToast('Account deleted')).toBeVisible();
    expect(fakeApi.requestsTo('deleteAccount').map((call) => call.body)).toEqual([
      { password: 'correct horse battery' },
    ]);
    const card = screen.getByRole('main');
    expect(card).toHaveTextContent('We sent a confirmation to leaving@example.com.');
    expect(card).toHaveTextContent(/purchase records are kept for accounting/);
    expect(card).toHaveTextContent(/Settings → your name → Subscriptions/);
    expect(within(card).getByRole('link', { name: 'Go to the home page' })).toHaveAttribute(
      'href',
      '/home',
    );

    // The server ended every session: this browser holds no tokens and shows no member.
    expect(tokenStore.read()).toBeNull();
    const header = screen.getByRole('banner');
    await waitFor(() =>
      expect(within(header).getByRole('link', { name: 'Sign In' })).toBeVisible(),
    );
    expect(within(header).queryByRole('link', { name: 'leaving@example.com' })).toBeNull();
  });

  it('shows a wrong password under its field, not in a toast, and keeps the session', async () => {
    signInAs();
    fakeApi.on('deleteAccount', errorReply(400, 'Current password is incorrect'));
    const { user, form, formElement } = await openDeleteForm();
    await user.type(form.getByLabelText('Current password'), 'wrong password');
    await user.type(form.getByLabelText('Type DELETE to confirm'), 'DELETE');
    await user.click(form.getByRole('button', { name: 'Delete account' }));

    const password = form.getByLabelText('Current password');
    await waitFor(() =>
      expect(password).toHaveAccessibleDescription('Current password is incorrect'),
    );
    expect(password).toHaveFocus();
    expect(queryToast('Current password is incorrect')).not.toBeInTheDocument();
    expect(formElement).toBeInTheDocument();
    expect(tokenStore.read()).not.toBeNull();
  });

  it('says a web pass ends with the account, with its end date', async () => {
    signInAs();
    const expiresAt = new Date(Date.now() + 200 * DAY).toISOString();
    const { form } = await openDeleteForm([
      purchase({ expiresAt }),
      purchase({
        expiresAt: new Date(Date.now() + 400 * DAY).toISOString(),
        refundedAt: expiresAt,
      }),
      purchase({ expiresAt: new Date(Date.now() - DAY).toISOString() }),
    ]);

    expect(
      await form.findByText(
        `Your premium pass until ${formatLongDate(expiresAt)} ends with your account and is not refunded.`,
      ),
    ).toBeVisible();
    expect(form.queryByRole('checkbox')).toBeNull();
  });

  it('asks to confirm an App Store subscription after a 409, then sends keepsAppStoreSubscription', async () => {
    signInAs();
    let answer = errorReply(409, APP_STORE_ACTIVE);
    fakeApi.on('deleteAccount', () => answer);
    const { user, form, pathname } = await openDeleteForm();
    expect(form.queryByRole('checkbox')).toBeNull();
    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.type(form.getByLabelText('Type DELETE to confirm'), 'DELETE');
    await user.click(form.getByRole('button', { name: 'Delete account' }));

    const box = await form.findByRole('checkbox', { name: APP_STORE_BOX });
    expect(
      form.getByText(/Deleting your account does not cancel your App Store subscription/),
    ).toBeVisible();
    await waitFor(() => expect(box).toHaveFocus());
    expect(queryToast(APP_STORE_ACTIVE)).not.toBeInTheDocument();

    // Unticked, the form sends nothing more.
    await user.click(form.getByRole('button', { name: 'Delete account' }));
    expect(box).toHaveAccessibleDescription(expect.stringContaining('Tick this box'));
    expect(fakeApi.requestsTo('deleteAccount')).toHaveLength(1);

    answer = { body: { message: 'Your account has been deleted' } };
    await user.click(box);
    await user.click(form.getByRole('button', { name: 'Delete account' }));

    await waitFor(() => expect(pathname()).toBe('/account/deleted'));
    expect(fakeApi.requestsTo('deleteAccount').map((call) => call.body)).toEqual([
      { password: 'correct horse battery' },
      { password: 'correct horse battery', keepsAppStoreSubscription: true },
    ]);
  });

  it('says so when a recent email change can still be undone, without asking about the App Store', async () => {
    signInAs();
    fakeApi.on('deleteAccount', errorReply(409, deleteAccountMessages.undoWindowOpen));
    const { user, form, pathname } = await openDeleteForm();
    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.type(form.getByLabelText('Type DELETE to confirm'), 'DELETE');
    await user.click(form.getByRole('button', { name: 'Delete account' }));

    expect(await findToast(deleteAccountMessages.undoWindowOpen)).toBeVisible();
    expect(form.queryByRole('checkbox')).toBeNull();
    expect(pathname()).toBe('/dashboard/settings');
  });

  it('asks about a running App Store subscription up front, and sends nothing unticked', async () => {
    signInAs();
    const { user, form } = await openDeleteForm([purchase({ provider: 'Apple' })]);
    const box = await form.findByRole('checkbox', { name: APP_STORE_BOX });
    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.type(form.getByLabelText('Type DELETE to confirm'), 'DELETE');
    await user.click(form.getByRole('button', { name: 'Delete account' }));

    expect(box).toHaveAttribute('aria-invalid', 'true');
    expect(fakeApi.requestsTo('deleteAccount')).toEqual([]);
  });

  it('offers a Google or Apple account to sign in again after a 403', async () => {
    signInAs({ hasPassword: false });
    fakeApi.on('deleteAccount', errorReply(403, SIGN_IN_AGAIN));
    fakeApi.on('logout', { body: { message: 'ok' } });
    const { user, form, pathname, search } = await openDeleteForm();
    expect(form.queryByLabelText('Current password')).toBeNull();
    expect(form.getByText(/deleting needs a sign-in within the last 10 minutes/)).toBeVisible();
    await user.type(form.getByLabelText('Type DELETE to confirm'), 'DELETE');
    await user.click(form.getByRole('button', { name: 'Delete account' }));

    expect(await form.findByRole('alert')).toHaveTextContent(SIGN_IN_AGAIN);
    expect(fakeApi.requestsTo('deleteAccount').map((call) => call.body)).toEqual([{}]);
    await user.click(form.getByRole('button', { name: 'Sign in again' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible();
    expect(pathname()).toBe('/auth/login');
    expect(search()).toBe('?r=%2Fdashboard%2Fsettings');
    expect(tokenStore.read()).toBeNull();
    expect(fakeApi.requestsTo('logout')).toHaveLength(1);
  });
});

describe('/account/deleted', () => {
  it('signs no one out when opened without a deletion (a bookmark, the back button)', async () => {
    signInAs({ email: 'member@example.com' });
    renderApp('/account/deleted');

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Your account has been deleted' }),
    ).toBeVisible();
    expect(screen.getByRole('main')).toHaveTextContent(
      'We sent a confirmation to your email address.',
    );
    expect(tokenStore.read()).not.toBeNull();
  });

  it('asks for a current code too while two-step sign-in is on, and shows a wrong one under it', async () => {
    signInAs({ twoStepEnabled: true });
    fakeApi.on('deleteAccount', errorReply(400, twoStepMessages.wrongSecondFactor));
    const { user, form } = await openDeleteForm();
    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.type(form.getByLabelText('Code from your authenticator app'), '123456');
    await user.type(form.getByLabelText('Type DELETE to confirm'), 'DELETE');
    await user.click(form.getByRole('button', { name: 'Delete account' }));
    expect(await form.findByText(twoStepMessages.wrongSecondFactor)).toBeVisible();
    expect(fakeApi.requestsTo('deleteAccount').map((call) => call.body)).toEqual([
      { password: 'correct horse battery', code: '123456' },
    ]);
    expect(queryToast(twoStepMessages.wrongSecondFactor)).toBeNull();
  });
});
