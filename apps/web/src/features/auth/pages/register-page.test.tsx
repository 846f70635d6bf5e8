import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, queryToast, renderApp } from '../../../testing/render-app';

const TOO_COMMON = 'This password is too common. Please choose a less guessable one.';
const BREACHED = 'This password has appeared in a data breach. Please choose another one.';

async function openRegister() {
  const view = renderApp('/auth/register');
  const fields = {
    email: await screen.findByRole('textbox', { name: 'Email' }),
    password: screen.getByLabelText('Password'),
    confirmation: screen.getByLabelText('Confirm password'),
  };
  const submit = () => view.user.click(screen.getByRole('button', { name: 'Create Account' }));
  return { ...view, fields, submit };
}

describe('/auth/register', () => {
  it('shows under each field what is wrong with it, and sends nothing', async () => {
    const { user, fields, submit } = await openRegister();
    await submit();
    // The form's schema arrives on the page's first touch (lazy-schema.ts): its messages follow.
    await waitFor(() => expect(fields.email).toHaveAccessibleDescription('Email is required'));
    expect(fields.password).toHaveAccessibleDescription('Password is too short');

    await user.type(fields.email, 'not-an-email');
    await user.type(fields.password, 'short');
    await submit();
    expect(fields.email).toHaveAccessibleDescription('Invalid email');
    expect(fields.password).toHaveAccessibleDescription('Password is too short');
    expect(fakeApi.requestsTo('register')).toEqual([]);
  });

  it("says 'Invalid email' for a part before the @ over 64 characters, and sends nothing", async () => {
    const { user, fields, submit } = await openRegister();
    await user.type(fields.email, `${'a'.repeat(65)}@example.com`);
    await user.type(fields.password, 'correct horse battery');
    await user.type(fields.confirmation, 'correct horse battery');
    await submit();

    await waitFor(() => expect(fields.email).toHaveAccessibleDescription('Invalid email'));
    expect(fakeApi.requestsTo('register')).toEqual([]);
  });

  it('shows a mismatch on the confirmation field, and sends nothing', async () => {
    const { user, fields, submit } = await openRegister();
    await user.type(fields.email, 'new@example.com');
    await user.type(fields.password, 'correct horse battery');
    await user.type(fields.confirmation, 'something else');
    await submit();

    await waitFor(() =>
      expect(fields.confirmation).toHaveAccessibleDescription('Passwords do not match'),
    );
    expect(fields.password).not.toHaveAccessibleDescription();
    expect(fakeApi.requestsTo('register')).toEqual([]);
  });

  it('creates the account without sending the confirmation, then goes to login', async () => {
    fakeApi.on('register', {
      status: 201,
      body: { id: 'new-1', email: 'new@example.com' },
    });
    const { user, fields, submit, pathname } = await openRegister();
    await user.type(fields.email, 'new@example.com');
    await user.type(fields.password, 'correct horse battery');
    await user.type(fields.confirmation, 'correct horse battery');
    await submit();

    expect(
      await findToast('Account has been created successfully! Log in to your account.'),
    ).toBeVisible();
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible();
    expect(pathname()).toBe('/auth/login');
    expect(fakeApi.requestsTo('register').map((request) => request.body)).toEqual([
      { email: 'new@example.com', password: 'correct horse battery' },
    ]);
  });

  it.each([TOO_COMMON, BREACHED])(
    'shows the refusal "%s" under the password field, not in a toast',
    async (refusal) => {
      fakeApi.on('register', errorReply(400, refusal));
      const { user, fields, submit, pathname } = await openRegister();
      await user.type(fields.email, 'new@example.com');
      await user.type(fields.password, 'Password1');
      await user.type(fields.confirmation, 'Password1');
      await submit();

      await waitFor(() => expect(fields.password).toHaveAccessibleDescription(refusal));
      expect(fields.password).toHaveFocus();
      expect(queryToast(refusal)).not.toBeInTheDocument();
      expect(pathname()).toBe('/auth/register');

      // Another password is checked afresh: the server's message goes with the one it was about.
      await user.type(fields.password, ' and more');
      expect(fields.password).not.toHaveAccessibleDescription();
    },
  );
});
