// Finding a member on the support desk (ADR 020) by each kind of term he may quote: the start of
// his email in any case, his account id, his Stripe customer, Checkout Session or PaymentIntent,
// and his App Store original transaction.
import type { MemberMatch } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { registerAndLogin } from '../support/accounts';
import { postTransaction } from '../support/app-store';
import { callApi, makeOperator, type TestOperator } from '../support/operators';
import { checkoutEvent, deliverStripeEvent, newPaymentIntentId } from '../support/stripe-events';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { useMovableClock } from '../support/two-step';

const PASSWORD = 'correct horse';

describe.each(testDatabaseKinds)('finding a member on the support desk on $name', (kind) => {
  let server: TestServer;
  let operator: TestOperator;
  beforeAll(async () => {
    // In development the server runs its own App Store sandbox, and asks it for order ids.
    server = await startTestServer(kind);
    useMovableClock();
    operator = await makeOperator(server.app, 'support', 'search');
  });
  afterAll(async () => {
    vi.useRealTimers();
    await server.close();
  });
  beforeEach(() => useMovableClock());
  afterEach(() => vi.useRealTimers());

  async function search(query: string): Promise<MemberMatch[]> {
    const response = await callApi(
      server.app,
      'GET',
      `/ops/members?query=${encodeURIComponent(query)}`,
      operator.accessToken,
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: MemberMatch[] }>().data;
  }

  async function member(email: string) {
    const { accessToken } = await registerAndLogin(server.app, email, PASSWORD);
    const profile = await callApi(server.app, 'GET', '/users/profile', accessToken);
    return { accessToken, id: profile.json<{ id: string }>().id };
  }

  it('finds members by the start of their email in any case, ordered by email; none is []', async () => {
    const stem = `Prefix${Date.now().toString(36)}`;
    const second = await member(`${stem.toLowerCase()}.b@example.com`);
    const first = await member(`${stem.toLowerCase()}.a@example.com`);
    await member(uniqueEmail('elsewhere'));

    const found = await search(stem.toUpperCase());
    expect(found.map((match) => [match.id, match.matchedBy])).toEqual([
      [first.id, 'email'],
      [second.id, 'email'],
    ]);
    expect(found[0]).toMatchObject({
      email: `${stem.toLowerCase()}.a@example.com`,
      createdAt: expect.any(String),
      subscriptionEndDate: null,
    });
    expect(await search(`${stem}.c`)).toEqual([]);
  });

  it('takes LIKE wildcards in the term as themselves', async () => {
    const stem = `wild${Date.now().toString(36)}`;
    const underscored = await member(`${stem}_x@example.com`);
    await member(`${stem}yx@example.com`);
    await member(`${stem}zzx@example.com`);

    expect((await search(`${stem}_`)).map((match) => match.id)).toEqual([underscored.id]);
    expect(await search(`${stem}%x`)).toEqual([]);
    expect(await search(`${stem}\\`)).toEqual([]);
  });

  it('finds a member by account id, Stripe customer, Checkout Session and PaymentIntent', async () => {
    const email = uniqueEmail('stripe-buyer');
    const buyer = await member(email);
    const paymentIntentId = newPaymentIntentId();
    const event = checkoutEvent({ email, planId: '1-week', paymentIntentId });
    const delivered = await deliverStripeEvent(server.app, event);
    expect(delivered.statusCode, delivered.body).toBe(200);
    const { db } = server.app.database;
    const purchase = await db
      .selectFrom('purchases')
      .select(['providerPaymentId'])
      .where('userId', '=', buyer.id)
      .executeTakeFirstOrThrow();
    expect(purchase.providerPaymentId).toMatch(/^cs_/);
    const customerId = `cus_search${Date.now().toString(36)}`;
    await db
      .updateTable('users')
      .set({ stripeCustomerId: customerId })
      .where('id', '=', buyer.id)
      .execute();

    for (const [term, matchedBy] of [
      [buyer.id, 'account id'],
      [buyer.id.toUpperCase(), 'account id'],
      [customerId, 'stripe customer'],
      [purchase.providerPaymentId, 'checkout session'],
      [paymentIntentId, 'payment intent'],
    ] as const) {
      expect(await search(term), term).toEqual([
        expect.objectContaining({ id: buyer.id, email, matchedBy }),
      ]);
    }
    expect(await search(crypto.randomUUID())).toEqual([]);
    expect(await search('cus_nobody')).toEqual([]);
    expect(await search('pi_nobody')).toEqual([]);
    expect(await search('cs_nobody')).toEqual([]);
  });

  /** A member subscribed on the App Store sandbox the server runs, bound by the iOS app's post. */
  async function appStoreSubscriber(label: string) {
    const subscriber = await member(uniqueEmail(label));
    const sandbox = server.app.appStoreSandbox;
    if (!sandbox) throw new Error('expected the App Store sandbox');
    const purchase = await sandbox.subscribe({
      productId: 'premium.month',
      appAccountToken: subscriber.id,
      deliver: false,
    });
    const bound = await postTransaction(
      server.app,
      subscriber.accessToken,
      purchase.signedTransaction,
    );
    expect(bound.statusCode, bound.body).toBe(200);
    return { ...subscriber, ...purchase };
  }

  it('finds a member by his App Store original transaction id', async () => {
    const subscriber = await appStoreSubscriber('apple');
    expect(await search(subscriber.originalTransactionId)).toEqual([
      expect.objectContaining({
        id: subscriber.id,
        matchedBy: 'original transaction',
        subscriptionEndDate: expect.any(String),
      }),
    ]);
    expect(await search('1234')).toEqual([]);
  });

  it("finds a member by the order id of Apple's receipt, through the App Store Server API", async () => {
    const subscriber = await appStoreSubscriber('apple-order');
    expect(await search(subscriber.orderId)).toEqual([
      expect.objectContaining({ id: subscriber.id, matchedBy: 'order id' }),
    ]);
    expect(await search('ZZZZ9999ZZ')).toEqual([]);
  });

  it('answers 400 to an empty term', async () => {
    const response = await callApi(
      server.app,
      'GET',
      '/ops/members?query=%20',
      operator.accessToken,
    );
    expect(response.statusCode).toBe(400);
  });
});
