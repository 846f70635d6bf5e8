import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { renderApp, signInAs } from '../../../testing/render-app';

const DAY_MS = 24 * 60 * 60 * 1000;
const HINT = 'Find it in the receipt email Apple sent you, e.g. MK5TTTVWJH';

describe('/dashboard/history, "Bought on your iPhone?"', () => {
  it('claims the purchase by its order id, then shows it and the new premium end', async () => {
    const endsAt = new Date(Date.now() + 30 * DAY_MS).toISOString();
    signInAs({ subscriptionEndDate: null });
    fakeApi.on('listPurchases', { body: { data: [] } });
    fakeApi.on('claimAppStorePurchase', () => {
      // The server now has the purchase and the premium end.
      signInAs({ subscriptionEndDate: endsAt });
      fakeApi.on('listPurchases', {
        body: {
          data: [
            {
              name: '1 Month',
              provider: 'Apple',
              createdAt: new Date().toISOString(),
              expiresAt: endsAt,
            },
          ],
        },
      });
      return { body: { subscriptionEndDate: endsAt } };
    });
    const { user } = renderApp('/dashboard/history');

    expect(await screen.findByRole('heading', { name: 'Bought on your iPhone?' })).toBeVisible();
    const field = screen.getByRole('textbox', { name: 'Order ID' });
    expect(field).toHaveAccessibleDescription(HINT);
    await user.type(field, ' mk5tttvwjh ');
    await user.click(screen.getByRole('button', { name: 'Claim purchase' }));

    expect(await screen.findByRole('status')).toHaveTextContent(
      /^Purchase claimed\. Your premium now ends on .+\.$/,
    );
    expect(fakeApi.requestsTo('claimAppStorePurchase').map((request) => request.body)).toEqual([
      { orderId: 'MK5TTTVWJH' },
    ]);
    expect(await screen.findByRole('table', { name: 'Purchases' })).toHaveTextContent('1 Month');
    expect(screen.getByText(/Your premium plan is active/)).toBeVisible();
  });

  it("shows the server's refusal under the field, and a malformed id without asking", async () => {
    signInAs();
    fakeApi.on('listPurchases', { body: { data: [] } });
    const refusal =
      'This App Store purchase belongs to another account. Please contact support at support@kegelcoach.app.';
    fakeApi.on('claimAppStorePurchase', errorReply(409, refusal));
    const { user } = renderApp('/dashboard/history');

    const field = await screen.findByRole('textbox', { name: 'Order ID' });
    await user.type(field, 'MK5TTT');
    await user.click(screen.getByRole('button', { name: 'Claim purchase' }));
    expect(
      await screen.findByText('Order ID must be 10 to 12 letters and digits, like MK5TTTVWJH'),
    ).toBeVisible();
    expect(fakeApi.requestsTo('claimAppStorePurchase')).toEqual([]);

    await user.clear(field);
    await user.type(field, 'MK5TTTVWJH');
    await user.click(screen.getByRole('button', { name: 'Claim purchase' }));
    expect(await screen.findByText(refusal)).toBeVisible();
    expect(field).toHaveAccessibleDescription(`${HINT} ${refusal}`);
    expect(screen.queryByRole('status')).toBeNull();
  });
});
