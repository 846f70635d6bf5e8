// Refunds by the support desk (ADR 020), end to end: the API asks the Stripe sandbox (the official
// SDK, as in production), the sandbox delivers its signed charge.refunded event back to the
// listening server, and the ledger takes the days out as for a refund made in Stripe's dashboard.
import { type Grant, type Refund, supportDeskMessages } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { post } from '../support/accounts';
import {
  auditRowsAbout,
  deskCall,
  makeMember,
  mailTemplatesFor,
  premiumEndOf,
  type TestMember,
} from '../support/desk-actions';
import { makeOperator, type TestOperator, testAuditTrail } from '../support/operators';
import {
  checkoutEvent,
  deliverStripeEvent,
  newPaymentIntentId,
  payOnSandboxPage,
} from '../support/stripe-events';
import { startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { useMovableClock } from '../support/two-step';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(testDatabaseKinds)('refunds from the support desk on $name', (kind) => {
  let server: TestServer;
  let support: TestOperator;
  let admin: TestOperator;
  beforeAll(async () => {
    server = await startTestServer(kind);
    // Listening for real: the sandbox delivers its webhooks over HTTP.
    await server.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    useMovableClock();
    support ??= await makeOperator(server.app, 'support');
    admin ??= await makeOperator(server.app, 'admin');
  });
  afterEach(() => vi.useRealTimers());

  /** Waits (bounded by the test's timeout) until `read` answers something `done` accepts. */
  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  function purchasesOf(member: TestMember) {
    return server.app.database.db
      .selectFrom('purchases')
      .select(['id', 'planName', 'days', 'amountCents', 'paymentIntentId', 'revokedAt'])
      .where('userId', '=', member.userId)
      .orderBy('createdAt')
      .execute();
  }

  /** The member buys a plan on the sandbox's checkout page; its purchase once the webhook granted it. */
  async function buy(member: TestMember, planId = '1-week') {
    const known = (await purchasesOf(member)).length;
    const started = await post(
      server.app,
      '/payments/stripe/new',
      { planId, email: member.email, price: 0 },
      member.accessToken,
    );
    expect(started.statusCode, started.body).toBe(200);
    const paid = await payOnSandboxPage(started.json<{ paymentURL: string }>().paymentURL);
    expect(paid.status).toBe(303);
    const purchases = await eventually(
      () => purchasesOf(member),
      (rows) => rows.length > known,
    );
    return purchases.at(-1)!;
  }

  function refund(
    operator: { accessToken: string } | undefined,
    purchaseId: string,
    body: unknown,
  ) {
    return deskCall(
      server.app,
      'POST',
      `/ops/purchases/${purchaseId}/refund`,
      operator?.accessToken,
      body,
      '198.51.100.7',
    );
  }

  /** What Stripe's events have told the server was refunded of a payment. */
  async function refundedCents(paymentIntentId: string): Promise<number> {
    const row = await server.app.database.db
      .selectFrom('stripeCharges')
      .select('amountRefundedCents')
      .where('paymentIntentId', '=', paymentIntentId)
      .executeTakeFirst();
    return row?.amountRefundedCents ?? 0;
  }

  async function recorded(member: TestMember) {
    return {
      audit: (await auditRowsAbout(server.app, member.userId)).length,
      mail: await mailTemplatesFor(server.app, member.userId),
    };
  }

  it("refunds a whole purchase through Stripe; once Stripe's event arrives the member's end drops by its days, and a second refund is 409", async () => {
    const member = await makeMember(server.app, 'refund-whole');
    await buy(member);
    const refunded = await buy(member);
    const endBefore = new Date((await premiumEndOf(server.app, member))!).getTime();

    const response = await refund(admin, refunded.id, { reason: 'bought twice' });
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json<Refund>();
    expect(answer).toEqual({
      id: expect.stringMatching(/^re_/),
      amountCents: refunded.amountCents,
      currency: 'usd',
      status: 'succeeded',
    });

    const end = await eventually(
      async () => new Date((await premiumEndOf(server.app, member))!).getTime(),
      (value) => value !== endBefore,
    );
    expect(end).toBe(endBefore - 7 * DAY_MS);
    expect((await purchasesOf(member)).at(-1)!.revokedAt).not.toBeNull();

    const rows = await auditRowsAbout(server.app, member.userId);
    expect(rows.at(-1)).toEqual({
      actorId: admin.userId,
      actorEmail: admin.email,
      actorRole: 'admin',
      action: 'refund.create',
      targetUserId: member.userId,
      targetEmail: member.email,
      reason: 'bought twice',
      changes: {
        before: { purchaseId: refunded.id, refundedCents: 0 },
        after: {
          purchaseId: refunded.id,
          refundedCents: refunded.amountCents,
          stripeRefundId: answer.id,
          status: 'succeeded',
        },
      },
      requestId: expect.stringMatching(/\S/),
      clientAddress: '198.51.100.7',
    });
    const mail = await server.inbox.waitFor(
      (email) => email.to.includes(member.email) && email.subject.startsWith('We refunded'),
    );
    expect(mail.subject).toBe('We refunded $9.99 of your Kegel Coach purchase');
    expect(mail.text).toContain('Reason: bought twice');

    const before = await recorded(member);
    const again = await refund(admin, refunded.id, { reason: 'again' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ message: supportDeskMessages.refundTooLarge });
    expect(await recorded(member)).toEqual(before);
    expect((await testAuditTrail().verify(server.app.database.db)).problems).toEqual([]);
  });

  it('refunds part of a purchase and keeps its days (a partial refund only is recorded, as today), refuses more than is left, then refunds the rest and takes the days out', async () => {
    const member = await makeMember(server.app, 'refund-part');
    const purchase = await buy(member);
    const paymentIntentId = purchase.paymentIntentId!;
    const endBefore = await premiumEndOf(server.app, member);

    const part = await refund(admin, purchase.id, { amountCents: 300, reason: 'goodwill' });
    expect(part.statusCode, part.body).toBe(200);
    expect(part.json<Refund>().amountCents).toBe(300);
    await eventually(
      () => refundedCents(paymentIntentId),
      (cents) => cents === 300,
    );
    expect(await premiumEndOf(server.app, member)).toBe(endBefore);

    const before = await recorded(member);
    const tooMuch = await refund(admin, purchase.id, {
      amountCents: purchase.amountCents - 300 + 1,
      reason: 'too much',
    });
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.json()).toMatchObject({ message: supportDeskMessages.refundTooLarge });
    expect(await recorded(member)).toEqual(before);

    const rest = await refund(admin, purchase.id, { reason: 'the rest' });
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json<Refund>().amountCents).toBe(purchase.amountCents - 300);
    await eventually(
      () => premiumEndOf(server.app, member),
      (end) => end !== endBefore,
    );
    expect((await purchasesOf(member))[0]!.revokedAt).not.toBeNull();
    expect(
      (await auditRowsAbout(server.app, member.userId))
        .filter((row) => row.action === 'refund.create')
        .map((row) => row.changes),
    ).toEqual([
      expect.objectContaining({ after: expect.objectContaining({ refundedCents: 300 }) }),
      expect.objectContaining({
        before: expect.objectContaining({ refundedCents: 300 }),
        after: expect.objectContaining({ refundedCents: purchase.amountCents }),
      }),
    ]);
  });

  it("makes a second part refund of the same amount asked before the first one's event arrived, and no more than what is left", async () => {
    const member = await makeMember(server.app, 'refund-same-part');
    const purchase = await buy(member);
    const first = await refund(admin, purchase.id, { amountCents: 400, reason: 'first part' });
    const second = await refund(admin, purchase.id, { amountCents: 400, reason: 'second part' });
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(second.json<Refund>().id).not.toBe(first.json<Refund>().id);
    const third = await refund(admin, purchase.id, { amountCents: 400, reason: 'third part' });
    expect(third.statusCode).toBe(409);
    expect(third.json()).toMatchObject({ message: supportDeskMessages.refundTooLarge });
    await eventually(
      () => refundedCents(purchase.paymentIntentId!),
      (cents) => cents === 800,
    );
    expect(
      (await auditRowsAbout(server.app, member.userId)).filter(
        (row) => row.action === 'refund.create',
      ),
    ).toHaveLength(2);
  });

  it("refunds once for the same refund asked twice at once (a double click): the other answers the same refund, or 409 when it read the first one's", async () => {
    const member = await makeMember(server.app, 'refund-double-click');
    const purchase = await buy(member);
    const responses = await Promise.all([
      refund(admin, purchase.id, { reason: 'double click' }),
      refund(admin, purchase.id, { reason: 'double click' }),
    ]);
    const made = responses.filter((response) => response.statusCode === 200);
    const refused = responses.filter((response) => response.statusCode === 409);
    expect(made.length + refused.length).toBe(2);
    expect(made.length).toBeGreaterThan(0);
    expect(new Set(made.map((response) => response.json<Refund>().id)).size).toBe(1);
    const atStripe = await (
      await server.app.stripe()
    ).refunds.list({
      payment_intent: purchase.paymentIntentId!,
    });
    expect(atStripe.data).toHaveLength(1);
    const { audit, mail } = await recorded(member);
    expect(audit).toBe(1);
    expect(mail.filter((template) => template === 'support-refund')).toHaveLength(1);
  });

  it('refuses App Store purchases (409, refunded by Apple) and support grants (409), changing nothing', async () => {
    const member = await makeMember(server.app, 'not-refundable');
    const apple = await server.app.database.db
      .insertInto('purchases')
      .values({
        userId: member.userId,
        planName: '1 Month',
        provider: 'Apple',
        providerPaymentId: newPaymentIntentId(),
        environment: 'Sandbox',
        amountCents: 999,
        currency: 'usd',
        days: 30,
        startsAt: new Date(),
        expiresAt: new Date(Date.now() + 30 * DAY_MS),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const granted = await deskCall(
      server.app,
      'POST',
      `/ops/members/${member.userId}/grants`,
      admin.accessToken,
      { days: 3, reason: 'outage', idempotencyKey: `refund-grant-${Date.now()}` },
    );
    const grantPurchase = (await purchasesOf(member)).find(
      (row) => row.planName === granted.json<Grant>().name,
    )!;
    const before = await recorded(member);

    const appStore = await refund(admin, apple.id, { reason: 'asked' });
    expect(appStore.statusCode).toBe(409);
    expect(appStore.json()).toMatchObject({ message: supportDeskMessages.appStoreRefund });
    const grant = await refund(admin, grantPurchase.id, { reason: 'asked' });
    expect(grant.statusCode).toBe(409);
    expect(grant.json()).toMatchObject({ message: supportDeskMessages.notRefundable });
    const unknown = await refund(admin, '00000000-0000-4000-8000-000000000000', { reason: 'x' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ message: supportDeskMessages.purchaseNotFound });
    expect(await recorded(member)).toEqual(before);
  });

  it('answers 502 and records nothing when Stripe refuses the refund', async () => {
    const member = await makeMember(server.app, 'stripe-refuses');
    // A payment the sandbox never saw: Stripe answers that no such PaymentIntent exists.
    const delivered = await deliverStripeEvent(
      server.app,
      checkoutEvent({ email: member.email, paymentIntentId: newPaymentIntentId() }),
    );
    expect(delivered.statusCode, delivered.body).toBe(200);
    const [purchase] = await purchasesOf(member);
    const before = await recorded(member);
    const response = await refund(admin, purchase!.id, { reason: 'asked' });
    expect(response.statusCode).toBe(502);
    expect(await recorded(member)).toEqual(before);
  });

  it('is for admins only: 403 to support, 403 to a member, 401 to a visitor, changing nothing', async () => {
    const member = await makeMember(server.app, 'refund-roles');
    const purchase = await buy(member);
    const before = await recorded(member);
    const bySupport = await refund(support, purchase.id, { reason: 'asked' });
    expect(bySupport.statusCode).toBe(403);
    expect(bySupport.json()).toMatchObject({ message: supportDeskMessages.adminOnly });
    expect((await refund(member, purchase.id, { reason: 'asked' })).statusCode).toBe(403);
    expect((await refund(undefined, purchase.id, { reason: 'asked' })).statusCode).toBe(401);
    expect(await recorded(member)).toEqual(before);
    expect(await refundedCents(purchase.paymentIntentId!)).toBe(0);
  });
});
