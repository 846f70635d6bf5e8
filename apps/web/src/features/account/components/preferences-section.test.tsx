import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { preferencesServer } from '../../../testing/preferences-server';
import { findToast, renderApp, signInAs } from '../../../testing/render-app';

const APPLE = 'Share my usage with Apple if I ask Apple for a refund';
const REMINDERS = 'Email me before my premium ends';

describe('/dashboard/settings, Preferences', () => {
  it('shows what the server keeps: the Apple consent off, reminders on, and what sharing means', async () => {
    signInAs();
    preferencesServer();
    renderApp('/dashboard/settings');
    const apple = await screen.findByRole('checkbox', { name: APPLE });
    expect(apple).not.toBeChecked();
    expect(apple).toHaveAccessibleDescription(/With it off, we share nothing\./);
    expect(apple).toHaveAccessibleDescription(/how much of the period you had used/);
    expect(screen.getByRole('checkbox', { name: REMINDERS })).toBeChecked();
  });

  it('saves the Apple consent from the keyboard, with the usual toast', async () => {
    signInAs();
    preferencesServer();
    const { user } = renderApp('/dashboard/settings');
    const apple = await screen.findByRole('checkbox', { name: APPLE });
    apple.focus();
    await user.keyboard(' ');
    expect(await findToast('Preferences saved')).toBeVisible();
    expect(apple).toBeChecked();
    expect(fakeApi.requestsTo('updatePreferences').map((request) => request.body)).toEqual([
      { appleConsumptionConsent: true },
    ]);
  });

  it('saves the reminders box when its label is clicked', async () => {
    signInAs();
    preferencesServer();
    const { user } = renderApp('/dashboard/settings');
    const reminders = await screen.findByRole('checkbox', { name: REMINDERS });
    await user.click(screen.getByText(REMINDERS));
    expect(await findToast('Preferences saved')).toBeVisible();
    expect(reminders).not.toBeChecked();
    expect(fakeApi.requestsTo('updatePreferences').map((request) => request.body)).toEqual([
      { expiryReminders: false },
    ]);
  });

  it('moves the box at once, then shows the error and puts it back when the server refuses', async () => {
    signInAs();
    preferencesServer({ appleConsumptionConsent: true });
    let refuse: () => void = () => {};
    fakeApi.on(
      'updatePreferences',
      () =>
        new Promise((resolve) => {
          refuse = () => resolve(errorReply(503, 'The service is busy; try again'));
        }),
    );
    const { user } = renderApp('/dashboard/settings');
    const apple = await screen.findByRole('checkbox', { name: APPLE });
    expect(apple).toBeChecked();
    await user.click(apple);
    await waitFor(() => expect(fakeApi.requestsTo('updatePreferences')).toHaveLength(1));
    expect(apple).not.toBeChecked();
    refuse();
    expect(await findToast('The service is busy; try again')).toBeVisible();
    await waitFor(() => expect(apple).toBeChecked());
  });

  it('says when the preferences could not be loaded', async () => {
    signInAs();
    fakeApi.on('listSessions', { body: { data: [] } });
    fakeApi.on('readPreferences', errorReply(500, 'Something went wrong'));
    renderApp('/dashboard/settings');
    expect(await screen.findByText(/Your preferences could not be loaded/)).toBeVisible();
  });
});
