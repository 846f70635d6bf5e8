import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, tokenExpiringInAnHour } from '../../../testing/render-app';

describe('/auth/login', () => {
  it('shows under each empty field what it needs, and sends nothing', async () => {
    const { user } = renderApp('/auth/login');
    await user.click(await screen.findByRole('button', { name: 'Sign In' }));

    // The form's schema arrives on the page's first touch (lazy-schema.ts): its messages follow.
    const email = await screen.findByRole('textbox', { name: 'Email' });
    await waitFor(() => expect(email).toHaveAccessibleDescription('Email is required'));
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Password is required');
    expect(fakeApi.requestsTo('login')).toEqual([]);
  });

  it("shows the server's message for a wrong password and stays on the page", async () => {
    fakeApi.on('login', errorReply(401, 'Invalid email or password'));
    const { user, pathname } = renderApp('/auth/login');
    await user.type(await screen.findByRole('textbox', { name: 'Email' }), 'member@example.com');
    await user.type(screen.getByLabelText('Password'), 'not the password');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));

    expect(await findToast('Invalid email or password')).toBeVisible();
    expect(screen.getByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible();
    expect(pathname()).toBe('/auth/login');
    expect(fakeApi.requestsTo('login')[0]?.body).toEqual({
      email: 'member@example.com',
      password: 'not the password',
    });
  });

  it('signs in, then goes back to the page in r', async () => {
    fakeApi.on('login', {
      body: { accessToken: tokenExpiringInAnHour(), refreshToken: tokenExpiringInAnHour() },
    });
    fakeApi.on('readProfile', {
      body: { id: 'm1', email: 'member@example.com', subscriptionEndDate: null, hasPassword: true },
    });
    const { user, pathname } = renderApp('/auth/login?r=%2Fdashboard%2Fsettings');
    await user.type(await screen.findByRole('textbox', { name: 'Email' }), 'member@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));

    expect(await findToast('Successfully authenticated')).toBeVisible();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Account Settings' }),
    ).toBeVisible();
    expect(pathname()).toBe('/dashboard/settings');
  });
});
