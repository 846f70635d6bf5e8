import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { fakeApi } from '../../../testing/fake-api';
import { renderApp } from '../../../testing/render-app';
import { signInAsOperator } from '../../../testing/support-desk';

const MEMBER_ID = '8a3c6a57-6c8b-4d0e-9b7e-3f1d2c4b5a69';
const DAY_MS = 24 * 60 * 60 * 1000;

describe('/ops/members/:id/view', () => {
  it('draws his dashboard and Purchase History read only, under a banner', async () => {
    signInAsOperator('support');
    const inAWeek = new Date(Date.now() + 7 * DAY_MS).toISOString();
    fakeApi.on('viewAsMember', {
      body: {
        profile: {
          id: MEMBER_ID,
          email: 'member@example.com',
          subscriptionEndDate: inAWeek,
          hasPassword: true,
          twoStepEnabled: false,
        },
        purchases: [
          {
            name: '1 Month',
            provider: 'Stripe',
            createdAt: new Date().toISOString(),
            expiresAt: inAWeek,
          },
        ],
      },
    });
    renderApp(`/ops/members/${MEMBER_ID}/view`);

    const banner = await screen.findByRole('note');
    expect(banner).toHaveTextContent('Viewing as member@example.com — read only');
    expect(within(banner).getByRole('link', { name: 'Back to his story' })).toHaveAttribute(
      'href',
      `/ops/members/${MEMBER_ID}`,
    );
    expect(screen.getByText(/Your premium plan is active and will expire on/)).toBeVisible();
    expect(screen.getByRole('table', { name: 'Active Subscriptions' })).toHaveTextContent(
      '1 Month',
    );
    // Nothing that writes: no Extend, no billing portal, no form.
    const main = screen.getByRole('main');
    expect(within(main).queryByRole('link', { name: /Premium/ })).toBeNull();
    expect(within(main).queryByRole('button', { name: 'Manage Subscription' })).toBeNull();
    expect(main.querySelector('form')).toBeNull();
  });
});
