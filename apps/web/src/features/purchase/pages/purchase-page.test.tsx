import type { Plan } from '@kegel/contract';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { errorReply, fakeApi, type FakeReply } from '../../../testing/fake-api';
import { findToast, renderApp } from '../../../testing/render-app';

const PLANS: Plan[] = [
  { id: '1-day', name: '1 Day', days: 1, price: 1.99 },
  { id: '1-week', name: '1 Week', days: 7, price: 9.99 },
  { id: '1-year', name: '1 Year', days: 365, price: 119.99 },
];

/** The tab the page opens during the click; the test sees where it is sent and whether closed. */
function stubNewTab() {
  const tab = {
    closed: false,
    opener: {},
    document: { title: '', body: { style: {}, textContent: '' } },
    location: { replace: vi.fn<(url: string) => void>() },
    close: vi.fn(() => {
      tab.closed = true;
    }),
  };
  vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
  return tab;
}

describe('/purchase', () => {
  it('asks for a valid email under the email field before opening anything', async () => {
    fakeApi.on('listPlans', { body: PLANS });
    const open = vi.spyOn(window, 'open');
    const { user } = renderApp('/purchase');
    // The longest plan is preselected.
    expect(await screen.findByRole('radio', { name: '1 Year' })).toBeChecked();
    const email = screen.getByRole('textbox', { name: 'Email' });

    await user.click(screen.getByRole('button', { name: 'Pay with Stripe' }));
    // The form's schema arrives on the page's first touch (lazy-schema.ts): its messages follow.
    await waitFor(() =>
      expect(email).toHaveAccessibleDescription(
        'required only for account verification Email is required',
      ),
    );
    await user.type(email, 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Pay with Stripe' }));
    expect(email).toHaveAccessibleDescription(
      'required only for account verification Invalid email',
    );
    expect(email).toHaveAttribute('aria-invalid', 'true');
    expect(open).not.toHaveBeenCalled();
    expect(fakeApi.requestsTo('startCheckout')).toEqual([]);
  });

  it('shows skeletons while the plans load, a clear error when they cannot, and needs a plan', async () => {
    let answerPlans: (reply: FakeReply) => void = () => {};
    fakeApi.on('listPlans', () => new Promise((resolve) => (answerPlans = resolve)));
    const { user } = renderApp('/purchase');
    const plans = await screen.findByRole('radiogroup', { name: /Choose your plan/ });
    expect(plans).toHaveAttribute('aria-busy', 'true');

    answerPlans(errorReply(503, 'Try later'));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The plans could not be loaded. Try later',
    );
    expect(screen.queryByRole('radio')).not.toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: 'Email' }), 'someone@example.com');
    await user.click(screen.getByRole('button', { name: 'Pay with Stripe' }));
    expect(await screen.findByText('Plan is required')).toBeVisible();
    expect(fakeApi.requestsTo('startCheckout')).toEqual([]);
  });

  it('opens the payment link in the tab it opened, with the chosen plan and email', async () => {
    fakeApi.on('listPlans', { body: PLANS });
    fakeApi.on('startCheckout', {
      body: { paymentURL: 'https://checkout.stripe.test/c/pay/cs_test_1' },
    });
    const tab = stubNewTab();
    const { user } = renderApp('/purchase');
    await user.click(await screen.findByRole('radio', { name: '1 Week' }));
    await user.type(screen.getByRole('textbox', { name: 'Email' }), 'buyer@example.com');
    await user.click(screen.getByRole('button', { name: 'Pay with Stripe' }));

    expect(await findToast('Payment link has been generated')).toBeVisible();
    expect(tab.location.replace).toHaveBeenCalledWith(
      'https://checkout.stripe.test/c/pay/cs_test_1',
    );
    expect(fakeApi.requestsTo('startCheckout')[0]?.body).toEqual({
      planId: '1-week',
      email: 'buyer@example.com',
    });
  });

  it("closes the tab and shows the server's message when no link can be made", async () => {
    fakeApi.on('listPlans', { body: PLANS });
    fakeApi.on('startCheckout', errorReply(400, 'Plan is required'));
    const tab = stubNewTab();
    const { user } = renderApp('/purchase');
    await screen.findByRole('radio', { name: '1 Year' });
    await user.type(screen.getByRole('textbox', { name: 'Email' }), 'buyer@example.com');
    await user.click(screen.getByRole('button', { name: 'Pay with Stripe' }));

    expect(await findToast('Plan is required')).toBeVisible();
    expect(tab.close).toHaveBeenCalled();
    expect(tab.location.replace).not.toHaveBeenCalled();
  });

  it('says plainly when the server refuses more payment attempts for now (429)', async () => {
    fakeApi.on('listPlans', { body: PLANS });
    fakeApi.on(
      'startCheckout',
      errorReply(429, 'Too many payment attempts from your network. Please try again later.'),
    );
    const tab = stubNewTab();
    const { user } = renderApp('/purchase');
    await screen.findByRole('radio', { name: '1 Year' });
    await user.type(screen.getByRole('textbox', { name: 'Email' }), 'buyer@example.com');
    await user.click(screen.getByRole('button', { name: 'Pay with Stripe' }));

    expect(
      await findToast('Too many payment attempts from your network. Please try again later.'),
    ).toBeVisible();
    expect(tab.close).toHaveBeenCalled();
    // The button works again: the person may retry later without reloading.
    expect(screen.getByRole('button', { name: 'Pay with Stripe' })).toBeEnabled();
  });
});
