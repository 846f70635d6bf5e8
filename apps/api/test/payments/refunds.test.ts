import type { PurchaseItem, PurchasesResponse } from '@kegel/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile, registerAndLogin } from '../support/accounts';
import { captureLog, LOG_LEVEL } from '../support/log-capture';
import {
  chargeRefundedEvent,
  checkoutEvent,
  deliverStripeEvent,
  disputeEvent,
  newDisputeId,
  newPaymentIntentId,
} from '../support/stripe-events';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Refunds and disputes take a purchase's days out of the ledger: exactly that purchase's, once,
 * whatever the order or number of the deliveries.
 */
describe.each(testDatabaseKinds)('refunds and disputes on $name', (kind) => {
  let server: TestServer;
  const log = captureLog();
  beforeAll(async () => {
    server = await startTestServer(kind, { logger: log.logger });
  });
  afterAll(() => server.close());

  async function member(label: string) {
    const email = uniqueEmail(label);
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    return { email, accessToken: tokens.accessToken };
  }

  async function buy(email: string, planId = '1-week'): Promise<string> {
    const paymentIntentId = newPaymentIntentId();
    const response = await deliverStripeEvent(
      server.app,
      checkoutEvent({ email, planId, paymentIntentId }),
    );
    expect(response.statusCode, response.body).toBe(200);
    return paymentIntentId;
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

  async function revocations(email: string): Promise<number> {
    const rows = await server.app.database.db
      .selectFrom('premiumLedger')
      .innerJoin('users', 'users.id', 'premiumLedger.userId')
      .select('premiumLedger.sequence')
      .where('users.email', '=', email)
      .where('premiumLedger.entry', '=', 'revoke')
      .execute();
    return rows.length;
  }

  it('takes the refunded middle pass of three out and shifts the third back by its days', async () => {
    const { email, accessToken } = await member('middle');
    const [, middle] = [await buy(email), await buy(email, '1-month'), await buy(email)];
    const before = await purchases(accessToken);
    const endBefore = (await premiumEnd(accessToken))!;

    const refund = await deliverStripeEvent(
      server.app,
      chargeRefundedEvent({ paymentIntentId: middle, amount: 2999 }),
    );
    expect(refund.json()).toEqual({ received: true });

    expect(await premiumEnd(accessToken)).toBe(endBefore - 30 * DAY_MS);
    const after = await purchases(accessToken);
    expect(after[0]).toEqual(before[0]);
    expect(after[1]).toEqual({
      ...before[1],
      refundedAt: expect.any(String),
      refundKind: 'refund',
    });
    expect(new Date(after[2]!.expiresAt).getTime()).toBe(
      new Date(before[2]!.expiresAt).getTime() - 30 * DAY_MS,
    );
    expect(after[2]!.refundedAt).toBeUndefined();
    expect(await revocations(email)).toBe(1);
  });

  it('revokes once for one refund event delivered five times at once', async () => {
    const { email, accessToken } = await member('five');
    await buy(email);
    const refunded = await buy(email);
    const endBefore = (await premiumEnd(accessToken))!;
    const event = chargeRefundedEvent({ paymentIntentId: refunded });
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => deliverStripeEvent(server.app, event)),
    );
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    // Handled once; the four others were known as the same event.
    const outcomes = log
      .find(LOG_LEVEL.info, /stripe: event handled/)
      .filter((line) => line.eventId === event.id)
      .map((line) => line.outcome)
      .sort();
    expect(outcomes).toEqual([
      'duplicate-event',
      'duplicate-event',
      'duplicate-event',
      'duplicate-event',
      'refund-recorded',
    ]);
    // Another event telling the same (Stripe sends one per refund) takes nothing more out.
    await deliverStripeEvent(server.app, chargeRefundedEvent({ paymentIntentId: refunded }));
    expect(await premiumEnd(accessToken)).toBe(endBefore - 7 * DAY_MS);
    expect(await revocations(email)).toBe(1);
  });

  it('records a partial refund and keeps the days; the rest refunded later takes them out', async () => {
    const { email, accessToken } = await member('partial');
    const paymentIntentId = await buy(email);
    const endBefore = (await premiumEnd(accessToken))!;
    await deliverStripeEvent(
      server.app,
      chargeRefundedEvent({ paymentIntentId, amount: 999, amountRefunded: 500 }),
    );
    expect(await premiumEnd(accessToken)).toBe(endBefore);
    expect((await purchases(accessToken))[0]!.refundedAt).toBeUndefined();
    const charge = await server.app.database.db
      .selectFrom('stripeCharges')
      .select(['amountCents', 'amountRefundedCents', 'refundedAt'])
      .where('paymentIntentId', '=', paymentIntentId)
      .executeTakeFirstOrThrow();
    expect(charge).toEqual({ amountCents: 999, amountRefundedCents: 500, refundedAt: null });

    await deliverStripeEvent(
      server.app,
      chargeRefundedEvent({ paymentIntentId, amount: 999, amountRefunded: 999 }),
    );
    // Its only pass refunded: no premium left.
    expect(await premiumEnd(accessToken)).toBeNull();
    expect((await purchases(accessToken))[0]!.refundedAt).toEqual(expect.any(String));
  });

  it('records an opened dispute, revokes on a lost one and keeps the days on a won one', async () => {
    const { email, accessToken } = await member('dispute');
    // A pass before them both: the passes after a revoked one then start where it ended.
    await buy(email, '1-day');
    const lost = await buy(email);
    const won = await buy(email, '1-month');
    const endBefore = (await premiumEnd(accessToken))!;
    const lostDispute = newDisputeId();
    const wonDispute = newDisputeId();

    await deliverStripeEvent(
      server.app,
      disputeEvent({ paymentIntentId: lost, disputeId: lostDispute, status: 'needs_response' }),
    );
    await deliverStripeEvent(
      server.app,
      disputeEvent({ paymentIntentId: won, disputeId: wonDispute, status: 'needs_response' }),
    );
    expect(await premiumEnd(accessToken)).toBe(endBefore);
    const opened = await server.app.database.db
      .selectFrom('stripeDisputes')
      .select(['id', 'status', 'closedAt'])
      .where('id', 'in', [lostDispute, wonDispute])
      .orderBy('id')
      .execute();
    expect(opened.map((row) => [row.status, row.closedAt])).toEqual([
      ['needs_response', null],
      ['needs_response', null],
    ]);

    await deliverStripeEvent(
      server.app,
      disputeEvent({ paymentIntentId: won, disputeId: wonDispute, status: 'won' }),
    );
    expect(await premiumEnd(accessToken)).toBe(endBefore);
    await deliverStripeEvent(
      server.app,
      disputeEvent({ paymentIntentId: lost, disputeId: lostDispute, status: 'lost' }),
    );
    expect(await premiumEnd(accessToken)).toBe(endBefore - 7 * DAY_MS);
    const [, first, second] = await purchases(accessToken);
    expect(first!.refundedAt).toEqual(expect.any(String));
    expect(second!.refundedAt).toBeUndefined();
  });

  it('keeps a lost dispute lost when its "created" event comes in after its "closed" one', async () => {
    const { email, accessToken } = await member('late-created');
    const paymentIntentId = await buy(email);
    const disputeId = newDisputeId();
    await deliverStripeEvent(
      server.app,
      disputeEvent({ paymentIntentId, disputeId, status: 'lost' }),
    );
    await deliverStripeEvent(
      server.app,
      disputeEvent({ paymentIntentId, disputeId, status: 'needs_response' }),
    );
    const dispute = await server.app.database.db
      .selectFrom('stripeDisputes')
      .select('status')
      .where('id', '=', disputeId)
      .executeTakeFirstOrThrow();
    expect(dispute.status).toBe('lost');
    expect(await premiumEnd(accessToken)).toBeNull();
  });

  it('applies a refund that came in before its payment was granted, when the grant comes', async () => {
    const { email, accessToken } = await member('early-refund');
    await buy(email);
    const endBefore = (await premiumEnd(accessToken))!;
    const paymentIntentId = newPaymentIntentId();
    const early = await deliverStripeEvent(server.app, chargeRefundedEvent({ paymentIntentId }));
    expect(early.statusCode).toBe(200);
    await deliverStripeEvent(server.app, checkoutEvent({ email, paymentIntentId }));
    expect(await premiumEnd(accessToken)).toBe(endBefore);
    const list = await purchases(accessToken);
    expect(list).toHaveLength(2);
    expect(list[1]!.refundedAt).toEqual(expect.any(String));
  });

  it('revokes a payment whose refund and grant come in at the same moment', async () => {
    const { email, accessToken } = await member('race');
    await buy(email);
    const endBefore = (await premiumEnd(accessToken))!;
    const paymentIntentId = newPaymentIntentId();
    const responses = await Promise.all([
      deliverStripeEvent(server.app, checkoutEvent({ email, paymentIntentId })),
      deliverStripeEvent(server.app, chargeRefundedEvent({ paymentIntentId })),
    ]);
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200]);
    expect(await premiumEnd(accessToken)).toBe(endBefore);
    expect((await purchases(accessToken))[1]!.refundedAt).toEqual(expect.any(String));
  });

  it('gives the days back when a lost dispute is won on appeal', async () => {
    const { email, accessToken } = await member('appeal');
    await buy(email, '1-day');
    const paymentIntentId = await buy(email);
    const endBefore = (await premiumEnd(accessToken))!;
    const disputeId = newDisputeId();
    await deliverStripeEvent(
      server.app,
      disputeEvent({ paymentIntentId, disputeId, status: 'lost' }),
    );
    expect(await premiumEnd(accessToken)).toBe(endBefore - 7 * DAY_MS);
    await deliverStripeEvent(
      server.app,
      disputeEvent({ paymentIntentId, disputeId, status: 'won' }),
    );
    expect(await premiumEnd(accessToken)).toBe(endBefore);
    expect((await purchases(accessToken))[1]!.refundedAt).toBeUndefined();
    // Then refunded in full (Stripe's time is in whole seconds, before the reinstatement's
    // milliseconds): the refund is the latest word, and takes the days out.
    await deliverStripeEvent(server.app, chargeRefundedEvent({ paymentIntentId }));
    expect(await premiumEnd(accessToken)).toBe(endBefore - 7 * DAY_MS);
  });
});
