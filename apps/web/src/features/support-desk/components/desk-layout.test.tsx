import { supportDeskMessages, twoStepMessages } from '@kegel/contract';
import { screen, within } from '@testing-library/react';
import { CATALOGS } from '@kegel/contract/i18n/catalogs';
import { afterEach, describe, expect, it } from 'vitest';

import { switchLocale } from '../../../shared/i18n/i18n';
import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp } from '../../../testing/render-app';
import { signInAsOperator } from '../../../testing/support-desk';

const NOT_YET = { deskOpenUntil: null };

describe('the support desk, before its pages', () => {
  it('sends a visitor to sign in, back to the desk afterwards', async () => {
    const app = renderApp('/ops/audit');
    await screen.findByRole('heading', { name: /sign in/i });
    expect(app.pathname()).toBe('/auth/login');
    expect(app.search()).toBe('?r=%2Fops%2Faudit');
  });

  it('tells a member who is not an operator, with a way to his dashboard', async () => {
    signInAsOperator(null, { hasSecondFactor: false, hasTwoStep: false, deskOpenUntil: null });
    renderApp('/ops');
    expect(await screen.findByText(supportDeskMessages.notAnOperator)).toBeVisible();
    expect(screen.getByRole('link', { name: 'Go to your dashboard' })).toHaveAttribute(
      'href',
      '/dashboard',
    );
    expect(fakeApi.requestsTo('searchMembers')).toHaveLength(0);
  });

  it('asks an operator without a second factor to add one in Account Settings', async () => {
    signInAsOperator('support', { hasSecondFactor: false, hasTwoStep: false, deskOpenUntil: null });
    renderApp('/ops');
    expect(await screen.findByText(supportDeskMessages.noSecondFactor)).toBeVisible();
    expect(screen.getByRole('link', { name: 'Open Account Settings' })).toHaveAttribute(
      'href',
      '/dashboard/settings',
    );
  });

  it('keeps the desk closed for a day after a second factor was added, saying until when', async () => {
    signInAsOperator('admin', {
      deskOpenUntil: null,
      deskClosedUntil: '2026-11-27T07:40:00.000Z',
    });
    renderApp('/ops');
    expect(
      await screen.findByText(new RegExp(`^${supportDeskMessages.secondFactorTooNew}: on `)),
    ).toBeVisible();
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(fakeApi.requestsTo('searchMembers')).toHaveLength(0);
  });

  it('asks for the second factor again after 12 hours: a wrong code under the field, then the desk', async () => {
    signInAsOperator('support', NOT_YET);
    fakeApi.on('stepUp', errorReply(400, twoStepMessages.wrongSecondFactor));
    const { user } = renderApp('/ops');

    await screen.findByRole('heading', { name: 'Confirm your second factor' });
    expect(screen.queryByRole('link', { name: 'Audit trail' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText(twoStepMessages.codeRequired)).toBeVisible();

    await user.type(screen.getByLabelText('Code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText(twoStepMessages.wrongSecondFactor)).toBeVisible();
    expect(screen.getByLabelText('Code')).toHaveAccessibleDescription(
      expect.stringContaining(twoStepMessages.wrongSecondFactor),
    );

    signInAsOperator('support');
    fakeApi.on('stepUp', { body: { secondFactorAt: new Date().toISOString() } });
    await user.clear(screen.getByLabelText('Code'));
    await user.type(screen.getByLabelText('Code'), '654321');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));

    expect(await screen.findByRole('heading', { name: 'Find a member' })).toBeVisible();
    expect(fakeApi.requestsTo('stepUp').at(-1)?.body).toEqual({ code: '654321' });
  });

  it('offers a passkey sign-in to an operator with a passkey', async () => {
    signInAsOperator('admin', { hasTwoStep: false, hasPasskey: true, deskOpenUntil: null });
    fakeApi.on('logout', { status: 204 });
    const { user, pathname, search } = renderApp('/ops/audit');
    await user.click(await screen.findByRole('button', { name: 'Sign in again with a passkey' }));
    await screen.findByRole('heading', { name: /sign in/i });
    expect(pathname()).toBe('/auth/login');
    expect(search()).toBe('?r=%2Fops%2Faudit');
    // No code field: two-step sign-in is off, a passkey is his only second factor.
    expect(screen.queryByLabelText('Code')).toBeNull();
  });

  it('shows the desk to an operator who proved it: header, nav, his email and role', async () => {
    signInAsOperator('admin');
    renderApp('/ops');
    const header = await screen.findByRole('banner');
    expect(within(header).getByText('Support desk')).toBeVisible();
    expect(within(header).getByText('agent@example.com')).toBeVisible();
    expect(within(header).getByText('admin')).toBeVisible();
    const nav = within(header).getByRole('navigation', { name: 'Support desk' });
    expect(within(nav).getByRole('link', { name: 'Find a member' })).toHaveAttribute(
      'href',
      '/ops',
    );
    expect(within(nav).getByRole('link', { name: 'Audit trail' })).toHaveAttribute(
      'href',
      '/ops/audit',
    );
  });

  it('brings the form back when a call says the 12 hours ran out while the desk was open', async () => {
    signInAsOperator('support');
    fakeApi.on('searchMembers', errorReply(403, supportDeskMessages.confirmSecondFactor));
    const { user } = renderApp('/ops');
    await user.type(await screen.findByLabelText(/Email, account id/), 'someone@example.com');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(
      await screen.findByRole('heading', { name: 'Confirm your second factor' }),
    ).toBeVisible();
  });

  it('says in a toast why a read failed', async () => {
    signInAsOperator('support');
    fakeApi.on('searchMembers', errorReply(502, 'The App Store could not be reached'));
    renderApp('/ops?q=1000000012345678');
    expect(await findToast('The App Store could not be reached')).toBeVisible();
  });

  describe('in German', () => {
    const german = CATALOGS.de.messages;
    afterEach(() => switchLocale('en'));

    it("tells a member who is not an operator in his language, the contract's words too", async () => {
      await switchLocale('de');
      signInAsOperator(null, { hasSecondFactor: false, hasTwoStep: false, deskOpenUntil: null });
      renderApp('/ops');
      expect(await screen.findByRole('heading', { name: 'Support-Desk' })).toBeVisible();
      expect(screen.getByText(german['supportDesk.notAnOperator']!)).toBeVisible();
      expect(screen.getByRole('link', { name: 'Zu Ihrem Dashboard' })).toBeVisible();
    });

    it('knows the server saying in German that the 12 hours ran out: the form comes back', async () => {
      await switchLocale('de');
      signInAsOperator('support');
      fakeApi.on('searchMembers', errorReply(403, german['supportDesk.confirmSecondFactor']!));
      renderApp('/ops?q=someone%40example.com');
      expect(
        await screen.findByRole('heading', { name: 'Bestätigen Sie Ihren zweiten Faktor' }),
      ).toBeVisible();
    });
  });
});
