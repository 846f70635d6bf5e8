import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, queryToast, renderApp } from '../../../testing/render-app';

const TOO_COMMON = 'This password is too common. Please choose a less guessable one.';

describe('/account/recover/new', () => {
  it('says a link without its code is invalid and goes to /auth/reset', async () => {
    const { pathname } = renderApp('/account/recover/new?email=someone%40example.com');

    expect(await findToast('Failed to change password. Link is invalid.')).toBeVisible();
    expect(await screen.findByRole('heading', { level: 1, name: 'Reset Password' })).toBeVisible();
    expect(pathname()).toBe('/auth/reset');
  });

  it('shows a short password and a mismatch under their fields, and sends nothing', async () => {
    const { user } = renderApp('/account/recover/new?email=someone%40example.com&code=abc');
    const newPassword = await screen.findByLabelText('New password');
    const repeat = screen.getByLabelText('Repeat new password');
    await user.type(newPassword, 'short');
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(newPassword).toHaveAccessibleDescription('Password is too short');

    await user.clear(newPassword);
    await user.type(newPassword, 'a brand new password');
    await user.type(repeat, 'a different password');
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(repeat).toHaveAccessibleDescription('Passwords do not match');
    expect(newPassword).not.toHaveAccessibleDescription();
    expect(fakeApi.requestsTo('confirmPasswordReset')).toEqual([]);
  });

  it('sends the email (its "+" restored) and code with the new password, then confirms', async () => {
    fakeApi.on('confirmPasswordReset', { body: { message: 'Password changed' } });
    const { user } = renderApp('/account/recover/new?email=some+one%40example.com&code=abc');
    await user.type(await screen.findByLabelText('New password'), 'a brand new password');
    await user.type(screen.getByLabelText('Repeat new password'), 'a brand new password');
    await user.click(screen.getByRole('button', { name: 'Change Password' }));

    expect(await screen.findByRole('heading', { name: 'Password Changed!' })).toBeVisible();
    expect(await findToast('Password changed successfully')).toBeVisible();
    expect(screen.getByRole('link', { name: 'Sign In Now' })).toHaveAttribute(
      'href',
      '/auth/login',
    );
    expect(fakeApi.requestsTo('confirmPasswordReset')[0]?.body).toEqual({
      email: 'some+one@example.com',
      code: 'abc',
      newPassword: 'a brand new password',
    });
  });

  it('shows a new password the server finds too common under its field, not in a toast', async () => {
    fakeApi.on('confirmPasswordReset', errorReply(400, TOO_COMMON));
    const { user } = renderApp('/account/recover/new?email=someone%40example.com&code=abc');
    const newPassword = await screen.findByLabelText('New password');
    await user.type(newPassword, 'qwertyuiop');
    await user.type(screen.getByLabelText('Repeat new password'), 'qwertyuiop');
    await user.click(screen.getByRole('button', { name: 'Change Password' }));

    await waitFor(() => expect(newPassword).toHaveAccessibleDescription(TOO_COMMON));
    expect(newPassword).toHaveFocus();
    expect(queryToast(TOO_COMMON)).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Password Changed!' })).not.toBeInTheDocument();
  });
});
