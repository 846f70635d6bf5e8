import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { fakeApi } from '../../../testing/fake-api';
import { renderApp, signInAs } from '../../../testing/render-app';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('/dashboard/history, a refunded purchase', () => {
  it('is labelled Refunded among the purchases and is not an active subscription', async () => {
    const inAWeek = new Date(Date.now() + 7 * DAY_MS).toISOString();
    const inAMonth = new Date(Date.now() + 30 * DAY_MS).toISOString();
    signInAs({ subscriptionEndDate: inAWeek });
    fakeApi.on('listPurchases', {
      body: {
        data: [
          {
            name: '1 Month',
            provider: 'Stripe',
            createdAt: new Date().toISOString(),
            expiresAt: inAMonth,
            refundedAt: new Date().toISOString(),
          },
          {
            name: '1 Week',
            provider: 'Stripe',
            createdAt: new Date(Date.now() - DAY_MS).toISOString(),
            expiresAt: inAWeek,
          },
        ],
      },
    });
    renderApp('/dashboard/history');

    const purchases = await screen.findByRole('table', { name: 'Purchases' });
    const [, refunded, kept] = within(purchases).getAllByRole('row');
    expect(within(refunded!).getByText('Refunded')).toBeVisible();
    expect(refunded).toHaveTextContent('1 Month');
    expect(within(kept!).queryByText('Refunded')).toBeNull();

    const active = screen.getByRole('table', { name: 'Active Subscriptions' });
    expect(within(active).getAllByRole('row')).toHaveLength(2);
    expect(active).toHaveTextContent('1 Week');
    expect(active).not.toHaveTextContent('1 Month');
  });
});

describe('/dashboard/history, days granted by the support team', () => {
  it('lists them as Support, and a removed grant as Removed rather than Refunded', async () => {
    const inAWeek = new Date(Date.now() + 7 * DAY_MS).toISOString();
    signInAs({ subscriptionEndDate: inAWeek });
    fakeApi.on('listPurchases', {
      body: {
        data: [
          {
            name: 'Granted by support: 7 days, service outage',
            provider: 'Support',
            createdAt: new Date().toISOString(),
            expiresAt: inAWeek,
          },
          {
            name: 'Granted by support: 3 days, goodwill',
            provider: 'Support',
            createdAt: new Date(Date.now() - DAY_MS).toISOString(),
            expiresAt: inAWeek,
            refundedAt: new Date().toISOString(),
          },
        ],
      },
    });
    renderApp('/dashboard/history');

    const active = await screen.findByRole('table', { name: 'Active Subscriptions' });
    const [, granted] = within(active).getAllByRole('row');
    expect(granted).toHaveTextContent('Granted by support: 7 days, service outage');
    expect(granted).toHaveTextContent('Support');
    const purchases = screen.getByRole('table', { name: 'Purchases' });
    const [, , removed] = within(purchases).getAllByRole('row');
    expect(within(removed!).getByText('Removed')).toBeVisible();
    expect(within(purchases).queryByText('Refunded')).toBeNull();
  });
});

describe('/dashboard/history, a charged-back purchase', () => {
  it('is labelled Charged back, not Refunded', async () => {
    const inAMonth = new Date(Date.now() + 30 * DAY_MS).toISOString();
    signInAs({ subscriptionEndDate: null });
    fakeApi.on('listPurchases', {
      body: {
        data: [
          {
            name: '1 Month',
            provider: 'Stripe',
            createdAt: new Date().toISOString(),
            expiresAt: inAMonth,
            refundedAt: new Date().toISOString(),
            refundKind: 'chargeback',
          },
          {
            name: '1 Week',
            provider: 'Stripe',
            createdAt: new Date(Date.now() - DAY_MS).toISOString(),
            expiresAt: inAMonth,
            refundedAt: new Date().toISOString(),
            refundKind: 'refund',
          },
        ],
      },
    });
    renderApp('/dashboard/history');

    const purchases = await screen.findByRole('table', { name: 'Purchases' });
    const [, chargedBack, refunded] = within(purchases).getAllByRole('row');
    expect(within(chargedBack!).getByText('Charged back')).toBeVisible();
    expect(within(chargedBack!).queryByText('Refunded')).toBeNull();
    expect(within(refunded!).getByText('Refunded')).toBeVisible();
  });
});
