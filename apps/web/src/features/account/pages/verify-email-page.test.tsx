import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, signInAs } from '../../../testing/render-app';

describe('/account/verify-email', () => {
  it('confirms the address (its "+" restored) and reads the profile again', async () => {
    signInAs({ email: 'old@example.com' });
    fakeApi.on('confirmEmailChange', () => {
      // From now on the server knows the member by the new address.
      signInAs({ email: 'new+web@example.com' });
      return { body: { message: 'Email successfully changed' } };
    });
    renderApp('/account/verify-email?newEmail=new+web%40example.com&code=abc');

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Email changed successfully' }),
    ).toBeVisible();
    expect(await findToast('Email successfully changed')).toBeVisible();
    expect(await screen.findByRole('link', { name: 'new+web@example.com' })).toHaveAttribute(
      'href',
      '/dashboard',
    );
    expect(fakeApi.requestsTo('confirmEmailChange').map((call) => call.body)).toEqual([
      { code: 'abc', newEmail: 'new+web@example.com' },
    ]);
  });

  it("shows the server's refusal and goes to Account Settings", async () => {
    signInAs();
    fakeApi.on('confirmEmailChange', errorReply(400, 'This link has expired'));
    const { pathname } = renderApp('/account/verify-email?newEmail=new%40example.com&code=old');

    expect(await findToast('This link has expired')).toBeVisible();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Account Settings' }),
    ).toBeVisible();
    expect(pathname()).toBe('/dashboard/settings');
  });

  it('says a link without its code is invalid and goes to Account Settings', async () => {
    signInAs();
    const { pathname } = renderApp('/account/verify-email?newEmail=new%40example.com');

    expect(await findToast('Invalid link. Please, try again.')).toBeVisible();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Account Settings' }),
    ).toBeVisible();
    expect(pathname()).toBe('/dashboard/settings');
    expect(fakeApi.requestsTo('confirmEmailChange')).toEqual([]);
  });
});
