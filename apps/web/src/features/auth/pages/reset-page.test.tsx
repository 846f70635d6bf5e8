import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp } from '../../../testing/render-app';

describe('/auth/reset', () => {
  it('needs a valid email under the field before sending', async () => {
    const { user } = renderApp('/auth/reset');
    const email = await screen.findByRole('textbox', { name: 'Email' });
    await user.click(screen.getByRole('button', { name: 'Send Link to Email' }));
    // The form's schema arrives on the page's first touch (lazy-schema.ts): its messages follow.
    await waitFor(() => expect(email).toHaveAccessibleDescription('Email is required'));
    await user.type(email, 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Send Link to Email' }));
    expect(email).toHaveAccessibleDescription('Invalid email');
    expect(fakeApi.requestsTo('requestPasswordReset')).toEqual([]);
  });

  it('sends the link, then shows where it went and how to reach support', async () => {
    fakeApi.on('requestPasswordReset', { body: { message: 'If an account exists' } });
    const { user } = renderApp('/auth/reset');
    await user.type(await screen.findByRole('textbox', { name: 'Email' }), 'member@example.com');
    await user.click(screen.getByRole('button', { name: 'Send Link to Email' }));

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Check Your Email Inbox!' }),
    ).toBeVisible();
    expect(screen.getByText('member@example.com')).toBeVisible();
    expect(await findToast('Check your inbox for the link')).toBeVisible();
    expect(screen.getByRole('link', { name: /contact support/ })).toHaveAttribute(
      'href',
      'mailto:support@kegelcoach.app',
    );
  });
});
