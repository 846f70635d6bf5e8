import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { switchLocale } from '../../../shared/i18n/i18n';
import { fakeApi } from '../../../testing/fake-api';
import { renderApp, signInAs } from '../../../testing/render-app';

/** The premium texts come from the catalogs and the dates from Intl: in German, German. */
describe('/dashboard/history in German', () => {
  beforeEach(() => switchLocale('de'));
  afterEach(() => switchLocale('en'));

  it('shows German headings, columns, labels and dates', async () => {
    // Noon UTC: the same calendar day wherever the test runs.
    const ends = '2031-03-05T12:00:00.000Z';
    signInAs({ subscriptionEndDate: ends });
    fakeApi.on('listPurchases', {
      body: {
        data: [
          {
            name: '1 Month',
            provider: 'Stripe',
            createdAt: '2031-02-03T12:00:00.000Z',
            expiresAt: ends,
          },
          {
            name: '1 Week',
            provider: 'Stripe',
            createdAt: '2031-01-20T12:00:00.000Z',
            expiresAt: '2031-01-27T12:00:00.000Z',
            refundedAt: '2031-01-21T12:00:00.000Z',
          },
        ],
      },
    });
    renderApp('/dashboard/history');

    const purchases = await screen.findByRole('table', { name: 'Käufe' });
    expect(screen.getByRole('heading', { level: 1, name: 'Kaufverlauf' })).toBeVisible();
    expect(
      screen.getByText(/^Ihr Premium-Tarif ist aktiv und läuft am Mittwoch, 5\. März 2031 um/),
    ).toBeVisible();
    const [header, kept, refunded] = within(purchases).getAllByRole('row');
    expect(header).toHaveTextContent('PaketGekauft amLäuft ab am');
    expect(kept).toHaveTextContent('1 Month3.2.315.3.31');
    expect(within(refunded!).getByText('Erstattet')).toBeVisible();

    const active = screen.getByRole('table', { name: 'Aktive Abonnements' });
    expect(within(active).getAllByRole('row')[1]).toHaveTextContent('1 MonthStripe5.3.31');
    expect(screen.getByRole('button', { name: 'Abonnement verwalten' })).toBeVisible();
  });
});
