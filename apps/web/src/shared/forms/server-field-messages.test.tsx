// A 400 of the API's validation names the field of each message (`fields` in the error shape):
// the form that sent the call shows each message under that field, through a real page (the
// register page) and the real HTTP client, with only the server's answer faked.
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { fakeApi, type FakeReply } from '../../testing/fake-api';
import { renderApp } from '../../testing/render-app';

function validationReply(fields: Array<{ field: string; message: string }>): FakeReply {
  return {
    status: 400,
    body: {
      statusCode: 400,
      error: 'Bad Request',
      message: fields.map(({ message }) => message),
      fields,
    },
  };
}

async function submitRegister() {
  const view = renderApp('/auth/register');
  const email = await screen.findByRole('textbox', { name: 'Email' });
  const password = screen.getByLabelText('Password');
  await view.user.type(email, 'new@example.com');
  await view.user.type(password, 'correct horse battery');
  await view.user.type(screen.getByLabelText('Confirm password'), 'correct horse battery');
  await view.user.click(screen.getByRole('button', { name: 'Create Account' }));
  return { ...view, email, password };
}

describe('server validation messages under their fields', () => {
  it('puts each message the server names a field for under that field, and no toast', async () => {
    // Messages the form could not have found itself: only the server's schema says them.
    fakeApi.on(
      'register',
      validationReply([
        { field: 'email', message: 'email: server-only reason' },
        { field: 'password', message: 'password is required' },
      ]),
    );
    const { email, password, pathname } = await submitRegister();

    await waitFor(() => expect(email).toHaveAccessibleDescription('email: server-only reason'));
    expect(password).toHaveAccessibleDescription('password is required');
    expect(email).toHaveFocus();
    const toasts = screen.queryByRole('region', { name: /Notifications/ });
    expect(toasts?.textContent ?? '').not.toContain('server-only reason');
    expect(pathname()).toBe('/auth/register');
  });

  it('keeps the toast when a message names a field the form does not have', async () => {
    fakeApi.on(
      'register',
      validationReply([
        { field: 'email', message: 'email: server-only reason' },
        { field: 'device.name', message: 'device.name: too long' },
      ]),
    );
    const { email } = await submitRegister();

    await waitFor(() => expect(email).toHaveAccessibleDescription('email: server-only reason'));
    // The whole message, joined by newlines as ever: nothing of it is lost.
    expect(await screen.findByText(/device\.name: too long/)).toBeVisible();
  });
});
