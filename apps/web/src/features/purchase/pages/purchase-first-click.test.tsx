// "Pay with Stripe" as the page's very first touch: the form's schema is imported on that touch
// (form-schemas.ts), so the click waits for it, then checks the form and opens the payment tab.
// The schema's module is held back here until the test lets it arrive (a replaced module: this
// file runs in a module cache of its own, so the page's schema has not arrived from another test).
import type { Plan } from '@kegel/contract';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, signInAs } from '../../../testing/render-app';

const schemaArrives = vi.hoisted(() => {
  let arrive: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  return { arrived, arrive: () => arrive() };
});

vi.mock('../contract-schemas', async (importOriginal) => {
  await schemaArrives.arrived;
  return importOriginal();
});

const PLANS: Plan[] = [
  { id: '1-week', name: '1 Week', days: 7, price: 9.99 },
  { id: '1-year', name: '1 Year', days: 365, price: 119.99 },
];

describe('/purchase, paid for at first touch', () => {
  it('waits for the schema, then checks the form and opens the payment tab', async () => {
    signInAs({ email: 'member@example.com' });
    fakeApi.on('listPlans', { body: PLANS });
    fakeApi.on('startCheckout', {
      body: { paymentURL: 'https://checkout.stripe.test/c/pay/cs_test_1' },
    });
    const tab = {
      closed: false,
      opener: {},
      document: { title: '', body: { style: {}, textContent: '' } },
      location: { replace: vi.fn<(url: string) => void>() },
      close: vi.fn(),
    };
    const open = vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
    const { user } = renderApp('/purchase');
    // The member's email is filled in and the longest plan preselected: nothing to touch first.
    expect(await screen.findByRole('radio', { name: '1 Year' })).toBeChecked();
    await waitFor(() =>
      expect(screen.getByRole('textbox', { name: 'Email' })).toHaveValue('member@example.com'),
    );

    await user.click(screen.getByRole('button', { name: 'Pay with Stripe' }));
    await user.click(screen.getByRole('button', { name: 'Pay with Stripe' }));
    expect(open).not.toHaveBeenCalled();

    schemaArrives.arrive();
    expect(await findToast('Payment link has been generated')).toBeVisible();
    // One tab and one checkout, though the second click came while the first waited.
    expect(open).toHaveBeenCalledTimes(1);
    expect(tab.location.replace).toHaveBeenCalledWith(
      'https://checkout.stripe.test/c/pay/cs_test_1',
    );
    expect(fakeApi.requestsTo('startCheckout').map(({ body }) => body)).toEqual([
      { planId: '1-year', email: 'member@example.com' },
    ]);
  });
});
