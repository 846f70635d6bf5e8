import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, queryToast, renderApp, signInAs } from '../../../testing/render-app';

const TOO_COMMON = 'This password is too common. Please choose a less guessable one.';

async function openForm(name: 'Change Email' | 'Change Password') {
  const view = renderApp('/dashboard/settings');
  await view.user.click(await screen.findByRole('button', { name }));
  const form = screen.getByRole('form', {
    name: name === 'Change Email' ? 'Change email' : 'Change password',
  });
  return { ...view, form: within(form), formElement: form };
}

describe('/dashboard/settings, Change Password', () => {
  it('shows a mismatch on the repeat field and a short password on the new one, sending nothing', async () => {
    signInAs();
    const { user, form } = await openForm('Change Password');
    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.type(form.getByLabelText('New password'), 'short');
    await user.type(form.getByLabelText('Repeat new password'), 'different');
    await user.click(form.getByRole('button', { name: 'Save Changes' }));

    expect(form.getByLabelText('New password')).toHaveAccessibleDescription(
      'Password is too short',
    );
    expect(form.getByLabelText('Repeat new password')).toHaveAccessibleDescription(
      'Passwords do not match',
    );
    expect(fakeApi.requestsTo('changePassword')).toEqual([]);
  });

  it('sends the old and new password only, closes the form and says it is done', async () => {
    signInAs();
    fakeApi.on('changePassword', {
      body: { message: 'Password changed successfully' },
    });
    const { user, form, formElement } = await openForm('Change Password');
    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.type(form.getByLabelText('New password'), 'another strong one');
    await user.type(form.getByLabelText('Repeat new password'), 'another strong one');
    await user.click(form.getByRole('button', { name: 'Save Changes' }));

    expect(await findToast('Password changed successfully')).toBeVisible();
    expect(await screen.findByText('Password successfully changed.')).toBeVisible();
    expect(formElement).not.toBeInTheDocument();
    expect(fakeApi.requestsTo('changePassword')[0]?.body).toEqual({
      oldPassword: 'correct horse battery',
      newPassword: 'another strong one',
    });
  });

  it("keeps the form open with the server's message when the current password is wrong", async () => {
    signInAs();
    fakeApi.on('changePassword', errorReply(400, 'Current password is incorrect'));
    const { user, form, formElement } = await openForm('Change Password');
    await user.type(form.getByLabelText('Current password'), 'wrong password');
    await user.type(form.getByLabelText('New password'), 'another strong one');
    await user.type(form.getByLabelText('Repeat new password'), 'another strong one');
    await user.click(form.getByRole('button', { name: 'Save Changes' }));

    expect(await findToast('Current password is incorrect')).toBeVisible();
    expect(formElement).toBeInTheDocument();
    expect(screen.queryByText('Password successfully changed.')).not.toBeInTheDocument();
  });

  it('shows a new password the server finds too common under its field, not in a toast', async () => {
    signInAs();
    fakeApi.on('changePassword', errorReply(400, TOO_COMMON));
    const { user, form, formElement } = await openForm('Change Password');
    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.type(form.getByLabelText('New password'), '12345678');
    await user.type(form.getByLabelText('Repeat new password'), '12345678');
    await user.click(form.getByRole('button', { name: 'Save Changes' }));

    const newPassword = form.getByLabelText('New password');
    await waitFor(() => expect(newPassword).toHaveAccessibleDescription(TOO_COMMON));
    expect(newPassword).toHaveFocus();
    expect(queryToast(TOO_COMMON)).not.toBeInTheDocument();
    expect(formElement).toBeInTheDocument();
    expect(form.getByLabelText('Current password')).not.toHaveAccessibleDescription();
  });
});

describe('/dashboard/settings, Change Email', () => {
  it('shows an invalid email and a missing password under their fields, sending nothing', async () => {
    signInAs();
    const { user, form } = await openForm('Change Email');
    await user.type(form.getByRole('textbox', { name: 'New email' }), 'not-an-email');
    await user.click(form.getByRole('button', { name: 'Save Changes' }));

    expect(form.getByRole('textbox', { name: 'New email' })).toHaveAccessibleDescription(
      'Invalid email',
    );
    expect(form.getByLabelText('Current password')).toHaveAccessibleDescription(
      'Password is required',
    );
    expect(fakeApi.requestsTo('requestEmailChange')).toEqual([]);
  });

  it('sends the new address, closes the form and asks to confirm it from the inbox', async () => {
    signInAs();
    fakeApi.on('requestEmailChange', {
      body: { message: 'Confirmation email sent successfully' },
    });
    const { user, form, formElement } = await openForm('Change Email');
    await user.type(form.getByRole('textbox', { name: 'New email' }), 'renamed@example.com');
    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.click(form.getByRole('button', { name: 'Save Changes' }));

    expect(await findToast('Confirmation email sent successfully')).toBeVisible();
    expect(await screen.findByText('Please check your inbox to confirm new email.')).toBeVisible();
    expect(formElement).not.toBeInTheDocument();
  });

  it('closes without sending on Cancel', async () => {
    signInAs();
    const { user, form, formElement } = await openForm('Change Email');
    await user.click(form.getByRole('button', { name: 'Cancel' }));
    expect(formElement).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Change Email' })).toBeVisible();
  });
});

describe('/dashboard/settings for a Google or Apple account', () => {
  it('offers to email a link that sets a password instead of the two forms', async () => {
    signInAs({ email: 'social@example.com', hasPassword: false });
    fakeApi.on('requestPasswordReset', { body: { message: 'sent' } });
    const { user } = renderApp('/dashboard/settings');
    await user.click(await screen.findByRole('button', { name: 'Email me a link' }));

    expect(await findToast('Link sent. Please check your inbox.')).toBeVisible();
    expect(await screen.findByRole('status')).toHaveTextContent(
      'We sent a link to social@example.com to set your password.',
    );
    expect(screen.queryByRole('button', { name: 'Change Password' })).not.toBeInTheDocument();
    expect(fakeApi.requestsTo('requestPasswordReset')[0]?.body).toEqual({
      email: 'social@example.com',
    });
  });
});
