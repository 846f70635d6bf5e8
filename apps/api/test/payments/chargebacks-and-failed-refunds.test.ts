// What a member's Purchase History calls a payment Stripe took back (docs/payments.md: "Refunds,
// disputes and failed refunds"): a lost dispute is "charged back", not refunded; and a refund
// that failed after Stripe reported it (charge.refund.updated, status failed) gives the days
// back through the ledger, once however often the event comes.
import type { PurchaseItem, PurchasesResponse } from '@kegel/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { getProfile, post, registerAndLogin } from '../support/accounts';
import { deskCall } from '../support/desk-actions';
import { makeOperator } from '../support/operators';
import {
  chargeRefundedEvent,
  checkoutEvent,
  deliverStripeEvent,
  disputeEvent,
  newDisputeId,
  newPaymentIntentId,
  payOnSandboxPage,
  refundUpdatedEvent,
} from '../support/stripe-events';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { useMovableClock } from '../support/two-step';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(testDatabaseKinds)('chargebacks and failed refunds on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    // Listening for real: the Stripe sandbox delivers its webhooks over HTTP.
    await server.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => server.close());

  async function member(label: string) {
    const email = uniqueEmail(label);
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    return { email, accessToken: tokens.accessToken };
  }

  async function buy(email: string): Promise<string> {
    const paymentIntentId = newPaymentIntentId();
    const response = await deliverStripeEvent(
      server.app,
      checkoutEvent({ email, paymentIntentId }),
    );
    expect(response.statusCode, response.body).toBe(200);
    return paymentIntentId;
  }

  async function deliver(event: Parameters<typeof deliverStripeEvent>[1]) {
    const response = await deliverStripeEvent(server.app, event);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<unknown>();
  }

  async function premiumEnd(accessToken: string): Promise<number | null> {
    const profile = (await getProfile(server.app, accessToken)).json<{
      subscriptionEndDate: string | null;
    }>();
    return profile.subscriptionEndDate ? new Date(profile.subscriptionEndDate).getTime() : null;
  }

  /** The member's purchases, oldest first. */
  async function purchases(accessToken: string): Promise<PurchaseItem[]> {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/subscriptions/personal',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    return response.json<PurchasesResponse>().data.reverse();
  }

  /** Waits (bounded by the test's timeout) until `read` answers something `done` accepts. */
  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function ledgerWords(email: string): Promise<string[]> {
    const rows = await server.app.database.db
      .selectFrom('premiumLedger')
      .innerJoin('users', 'users.id', 'premiumLedger.userId')
      .select('premiumLedger.entry')
      .where('users.email', '=', email)
      .orderBy('premiumLedger.sequence')
      .execute();
    return rows.map((row) => row.entry);
  }

  it('calls a lost dispute a chargeback and a full refund a refund', async () => {
    const { email, accessToken } = await member('charged-back');
    const disputed = await buy(email);
    const refunded = await buy(email);
    const disputeId = newDisputeId();
    await deliver(disputeEvent({ paymentIntentId: disputed, disputeId, status: 'needs_response' }));
    await deliver(disputeEvent({ paymentIntentId: disputed, disputeId, status: 'lost' }));
    await deliver(chargeRefundedEvent({ paymentIntentId: refunded }));

    const [chargedBack, refund] = await purchases(accessToken);
    expect(chargedBack).toMatchObject({ refundedAt: expect.any(String), refundKind: 'chargeback' });
    expect(refund).toMatchObject({ refundedAt: expect.any(String), refundKind: 'refund' });
  });

  it('gives the days of a refund that failed back, once, and the purchase no longer shows refunded', async () => {
    const { email, accessToken } = await member('failed-refund');
    await buy(email);
    const paymentIntentId = await buy(email);
    const endBought = (await premiumEnd(accessToken))!;
    const refunded = chargeRefundedEvent({ paymentIntentId });
    await deliver(refunded);
    expect(await premiumEnd(accessToken)).toBe(endBought - 7 * DAY_MS);

    const failed = refundUpdatedEvent({
      paymentIntentId,
      chargeId: refunded.data.object.id as string,
      status: 'failed',
    });
    expect(await deliver(failed)).toEqual({ received: true });
    expect(await premiumEnd(accessToken)).toBe(endBought);
    const [, again] = await purchases(accessToken);
    expect(again!.refundedAt).toBeUndefined();
    expect(again!.refundKind).toBeUndefined();

    // The same event again, and another telling the same failure: nothing more changes.
    await deliver(failed);
    await deliver({ ...failed, id: `${failed.id}_again` });
    // A charge event from before the failure, delivered late, still counts the failed refund.
    await deliver({ ...chargeRefundedEvent({ paymentIntentId }), created: failed.created! - 60 });
    expect(await premiumEnd(accessToken)).toBe(endBought);
    expect(await ledgerWords(email)).toEqual(['grant', 'grant', 'revoke', 'reinstate']);
    const charge = await server.app.database.db
      .selectFrom('stripeCharges')
      .select(['amountRefundedCents', 'refundedAt'])
      .where('paymentIntentId', '=', paymentIntentId)
      .executeTakeFirstOrThrow();
    expect(charge).toEqual({ amountRefundedCents: 0, refundedAt: null });
  });

  it('keeps the days of a partial refund that failed', async () => {
    const { email, accessToken } = await member('failed-part');
    const paymentIntentId = await buy(email);
    const endBought = (await premiumEnd(accessToken))!;
    const part = chargeRefundedEvent({ paymentIntentId, amount: 999, amountRefunded: 300 });
    await deliver(part);
    await deliver(
      refundUpdatedEvent({
        paymentIntentId,
        chargeId: part.data.object.id as string,
        status: 'failed',
        amount: 300,
      }),
    );
    expect(await premiumEnd(accessToken)).toBe(endBought);
    expect((await purchases(accessToken))[0]!.refundedAt).toBeUndefined();
    expect(await ledgerWords(email)).toEqual(['grant']);
  });

  it('changes nothing for a refund update that did not fail', async () => {
    const { email, accessToken } = await member('refund-updated');
    const paymentIntentId = await buy(email);
    const refunded = chargeRefundedEvent({ paymentIntentId });
    await deliver(refunded);
    const end = await premiumEnd(accessToken);
    await deliver(
      refundUpdatedEvent({
        paymentIntentId,
        chargeId: refunded.data.object.id as string,
        status: 'succeeded',
      }),
    );
    expect(await premiumEnd(accessToken)).toBe(end);
    expect((await purchases(accessToken))[0]!.refundKind).toBe('refund');
  });

  it("gives the days back when the Stripe sandbox's refund fails (test card 4000 0000 0000 5126)", async () => {
    useMovableClock();
    try {
      const admin = await makeOperator(server.app, 'admin', 'failing-refund');
      const { email, accessToken } = await member('sandbox-failed');
      const started = await post(
        server.app,
        '/payments/stripe/new',
        { planId: '1-week', email, price: 0 },
        accessToken,
      );
      expect(started.statusCode, started.body).toBe(200);
      const paymentURL = started.json<{ paymentURL: string }>().paymentURL;
      expect((await payOnSandboxPage(paymentURL, '4000000000005126')).status).toBe(303);
      const end = await eventually(
        () => premiumEnd(accessToken),
        (value) => value !== null,
      );
      const [purchase] = await server.app.database.db
        .selectFrom('purchases')
        .innerJoin('users', 'users.id', 'purchases.userId')
        .select('purchases.id')
        .where('users.email', '=', email)
        .execute();
      const refund = await deskCall(
        server.app,
        'POST',
        `/ops/purchases/${purchase!.id}/refund`,
        admin.accessToken,
        { reason: 'asked for it' },
      );
      expect(refund.statusCode, refund.body).toBe(200);
      // Refunded first (the days go), then the refund fails and they come back.
      await eventually(
        () => ledgerWords(email),
        (words) => words.includes('reinstate'),
      );
      expect(await ledgerWords(email)).toEqual(['grant', 'revoke', 'reinstate']);
      expect(await premiumEnd(accessToken)).toBe(end);
      expect((await purchases(accessToken))[0]!.refundedAt).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
