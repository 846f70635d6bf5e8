import type { CheckoutSession, Plan } from '@kegel/contract';
import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { switchLocale } from '../../../shared/i18n/i18n';
import { fakeApi } from '../../../testing/fake-api';
import { renderApp } from '../../../testing/render-app';

/** The API names plans in English; the page names them by their duration in the reader's language. */
const PLANS: Plan[] = [
  { id: '1-week', name: '1 Week', days: 7, price: 9.99 },
  { id: '1-year', name: '1 Year', days: 365, price: 119.99 },
];

/** The checkout's texts, prices and dates come from the catalogs and Intl: in German, German. */
describe('the checkout in German', () => {
  beforeEach(() => switchLocale('de'));
  afterEach(() => switchLocale('en'));

  it('/purchase: German steps, plan names, and prices in dollars as German writes them', async () => {
    fakeApi.on('listPlans', { body: PLANS });
    renderApp('/purchase');

    expect(await screen.findByRole('radio', { name: '1 Jahr' })).toBeChecked();
    expect(screen.getByRole('heading', { level: 1, name: 'Premium erhalten' })).toBeVisible();
    expect(screen.getByRole('radiogroup', { name: /Wählen Sie Ihren Tarif/ })).toBeVisible();
    const week = screen.getByRole('radio', { name: '1 Woche' });
    expect(week).toHaveAccessibleDescription(
      /^9,99\s\$ \/ Woche 9,99\s\$ für 7 Tage, wöchentlich abgerechnet$/,
    );
    expect(screen.getByText('AM BELIEBTESTEN')).toBeVisible();

    const summary = screen.getByRole('region', { name: 'Bestellübersicht' });
    // The preselected radio is checked at once; the summary follows in the next draw (useWatch).
    expect(await within(summary).findByText('Premium — 1 Jahr')).toBeVisible();
    expect(within(summary).getByText('Gesamtbetrag').nextElementSibling).toHaveTextContent(
      /^119,99\s\$$/,
    );
    expect(screen.getByRole('button', { name: 'Mit Stripe bezahlen' })).toBeVisible();
    const legal = screen.getByText(/^Mit der Zahlung stimmen Sie unseren/);
    expect(legal).toHaveTextContent(
      'Mit der Zahlung stimmen Sie unseren Nutzungsbedingungen und unserer Datenschutzerklärung zu.',
    );
    expect(within(legal).getByRole('link', { name: 'Nutzungsbedingungen' })).toBeVisible();
  });

  it('/purchase/complete: the details in German, with a German date', async () => {
    const session: CheckoutSession = {
      id: 'cs_test_1',
      durationDays: 30,
      beginsAt: '2031-03-05T12:00:00.000Z',
      providerType: 'Stripe',
      price: 29.99,
    };
    fakeApi.on('describeCheckout', { body: session });
    renderApp('/purchase/complete?registered=false&email=guest%40example.com&session=cs_test_1');

    expect(await screen.findByText('Premium — 1 Monat')).toBeVisible();
    expect(screen.getByRole('heading', { name: 'Kauf abgeschlossen!' })).toBeVisible();
    expect(screen.getByText(/Wir haben Ihr Konto erstellt/)).toHaveTextContent('guest@example.com');
    expect(screen.getByText('Betrag').nextElementSibling).toHaveTextContent(/^29,99\s\$$/);
    // Noon UTC: 5 March wherever the test runs, in German's order and month name.
    expect(screen.getByText('Datum').nextElementSibling).toHaveTextContent(
      /^5\. März 2031 um \d{1,2}:00$/,
    );
    expect(screen.getByRole('link', { name: 'Im Dashboard anmelden' })).toBeVisible();
  });
});
