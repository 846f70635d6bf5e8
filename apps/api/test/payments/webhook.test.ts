import { randomUUID } from 'node:crypto';

import type { PurchasesResponse } from '@kegel/contract';
import { sql } from 'kysely';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile, login, register, registerAndLogin } from '../support/accounts';
import {
  startTestServer,
  TEST_STRIPE_WEBHOOK_SECRET,
  type TestServer,
  uniqueEmail,
} from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const stripe = new Stripe('sk_test_only_for_signing');
const DAY_MS = 24 * 60 * 60 * 1000;

interface CheckoutEvent {
  id: string;
  object: 'event';
  type: string;
  data: { object: Record<string, unknown> };
}

function checkoutEvent(options: {
  sessionId?: string;
  email: string;
  planId?: string;
  type?: string;
  paymentStatus?: 'paid' | 'unpaid';
}): CheckoutEvent {
  return {
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    object: 'event',
    type: options.type ?? 'checkout.session.completed',
    data: {
      object: {
        id: options.sessionId ?? `cs_test_${randomUUID().replaceAll('-', '')}`,
        object: 'checkout.session',
        customer_details: { email: options.email },
        metadata: { planId: options.planId ?? '1-week' },
        amount_total: 999,
        currency: 'usd',
        payment_status: options.paymentStatus ?? 'paid',
      },
    },
  };
}

describe.each(testDatabaseKinds)('Stripe webhook on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  function deliver(
    event: CheckoutEvent,
    options: {
      secret?: string;
      timestamp?: number;
      tamper?: boolean;
      signature?: string | null;
    } = {},
  ) {
    const payload = JSON.stringify(event);
    const header = stripe.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? TEST_STRIPE_WEBHOOK_SECRET,
      timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
    });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.signature !== null) headers['stripe-signature'] = options.signature ?? header;
    return server.app.inject({
      method: 'POST',
      url: '/api/payments/stripe/webhook',
      headers,
      payload: options.tamper
        ? payload.replace('"amount_total":999', '"amount_total":998')
        : payload,
    });
  }

  async function premiumEnd(email: string): Promise<Date | null> {
    const row = await server.app.database.db
      .selectFrom('users')
      .select('subscriptionEndDate')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .executeTakeFirst();
    return row?.subscriptionEndDate ?? null;
  }

  async function purchasesOf(email: string): Promise<number> {
    const rows = await server.app.database.db
      .selectFrom('purchases')
      .innerJoin('users', 'users.id', 'purchases.userId')
      .select('purchases.id')
      .where((eb) => eb(eb.fn('lower', ['users.email']), '=', email.toLowerCase()))
      .execute();
    return rows.length;
  }

  it('lists the plans from the database, in dollars', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/api/payments/stripe/plans' });
    expect(response.json()).toEqual([
      { id: '1-day', name: '1 Day', days: 1, price: 2.99 },
      { id: '1-week', name: '1 Week', days: 7, price: 9.99 },
      { id: '1-month', name: '1 Month', days: 30, price: 29.99 },
      { id: '1-year', name: '1 Year', days: 365, price: 119.99 },
    ]);
  });

  it('writes nothing for a delivery without a valid signature', async () => {
    const email = uniqueEmail('unsigned');
    const event = checkoutEvent({ email });
    const attempts = [
      await deliver(event, { signature: null }),
      await deliver(event, { secret: 'whsec_someone_else' }),
      await deliver(event, { tamper: true }),
      await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 10 * 60 }),
    ];
    expect(attempts.map((response) => response.statusCode)).toEqual([400, 400, 400, 400]);
    expect(attempts[1]!.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Invalid Stripe signature',
    });
    const events = await server.app.database.db
      .selectFrom('stripeEvents')
      .select('id')
      .where('id', '=', event.id)
      .execute();
    expect(events).toEqual([]);
    expect(await premiumEnd(email)).toBeNull();
  });

  it('creates the account of a new email, mails its password once, and the password signs in', async () => {
    const email = uniqueEmail('guest');
    const before = Date.now();
    const response = await deliver(checkoutEvent({ email }));
    expect(response.json()).toEqual({ received: true });

    const end = (await premiumEnd(email))!.getTime();
    expect(end).toBeGreaterThanOrEqual(before + 7 * DAY_MS - 1000);
    expect(end).toBeLessThanOrEqual(Date.now() + 7 * DAY_MS + 1000);

    const mail = await server.inbox.waitFor((message) => message.to.includes(email));
    expect(mail.subject).toBe('Your Kegel Coach premium and account');
    const password = /Sign in with this password: (\S+)/.exec(mail.text)?.[1] ?? '';
    expect(password.length).toBeGreaterThanOrEqual(16);
    const tokens = await login(server.app, email, password);
    expect((await getProfile(server.app, tokens.accessToken)).json()).toMatchObject({
      email,
      subscriptionEndDate: new Date(end).toISOString(),
    });
    const subscriptions = await server.app.inject({
      method: 'GET',
      url: '/api/users/subscriptions/personal',
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(subscriptions.json<PurchasesResponse>().data).toEqual([
      {
        name: '1 Week',
        provider: 'Stripe',
        createdAt: expect.any(String),
        expiresAt: new Date(end).toISOString(),
      },
    ]);
    expect(server.inbox.messages().filter((message) => message.to.includes(email))).toHaveLength(1);
  });

  it('adds the days to a known email, after its current premium, and mails no password', async () => {
    const email = uniqueEmail('known');
    await register(server.app, email, 'correct horse');
    await deliver(checkoutEvent({ email, planId: '1-month' }));
    const first = (await premiumEnd(email))!.getTime();
    await deliver(checkoutEvent({ email: email.toUpperCase(), planId: '1-week' }));
    const second = (await premiumEnd(email))!.getTime();
    expect(second - first).toBe(7 * DAY_MS);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.inbox.messages().filter((message) => message.to.includes(email))).toHaveLength(0);
  });

  it("writes a grant's purchase once, with its period after the current premium", async () => {
    // A purchase inserted with a placeholder and then given its period is written twice, with a
    // second entry in every index of purchases (expires_at is indexed, so the update is never
    // HOT) and a dead row version. Updates of purchases are counted while the trigger stands.
    const { db } = server.app.database;
    await sql`create table if not exists test_purchase_updates (purchase_id uuid not null)`.execute(
      db,
    );
    await sql`create or replace function test_count_purchase_update() returns trigger
      language plpgsql as $$ begin
        insert into test_purchase_updates values (new.id); return new;
      end $$`.execute(db);
    await sql`create or replace trigger test_purchase_updates after update on purchases
      for each row execute function test_count_purchase_update()`.execute(db);

    try {
      const email = uniqueEmail('written-once');
      await register(server.app, email, 'correct horse');
      await deliver(checkoutEvent({ email, planId: '1-month' }));
      const firstEnd = (await premiumEnd(email))!.getTime();
      await deliver(checkoutEvent({ email, planId: '1-week' }));

      const purchases = await db
        .selectFrom('purchases')
        .innerJoin('users', 'users.id', 'purchases.userId')
        .select(['purchases.id', 'purchases.days', 'purchases.startsAt', 'purchases.expiresAt'])
        .where((eb) => eb(eb.fn('lower', ['users.email']), '=', email.toLowerCase()))
        .orderBy('purchases.days')
        .execute();
      expect(purchases.map((purchase) => purchase.days)).toEqual([7, 30]);
      const [week] = purchases;
      expect(week!.startsAt.getTime()).toBe(firstEnd);
      expect(week!.expiresAt.getTime()).toBe(firstEnd + 7 * DAY_MS);
      const updated = await sql<{ purchaseId: string }>`
        select purchase_id as "purchaseId" from test_purchase_updates`.execute(db);
      const ids = new Set(purchases.map((purchase) => purchase.id));
      expect(updated.rows.filter((row) => ids.has(row.purchaseId))).toEqual([]);
    } finally {
      await sql`drop trigger test_purchase_updates on purchases`.execute(db);
    }
  });

  it('grants once for one event delivered five times, and twenty times at once', async () => {
    const email = uniqueEmail('redelivered');
    const event = checkoutEvent({ email });
    for (let delivery = 0; delivery < 5; delivery += 1)
      expect((await deliver(event)).statusCode).toBe(200);
    const afterFive = await premiumEnd(email);

    const concurrent = checkoutEvent({ email });
    const responses = await Promise.all(Array.from({ length: 20 }, () => deliver(concurrent)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    expect(await purchasesOf(email)).toBe(2);
    expect((await premiumEnd(email))!.getTime() - afterFive!.getTime()).toBe(7 * DAY_MS);
  });

  it('grants once per payment whatever events announce it, in any order', async () => {
    const email = uniqueEmail('async');
    const sessionId = `cs_test_${randomUUID()}`;
    await deliver(checkoutEvent({ email, sessionId, paymentStatus: 'unpaid' }));
    expect(await premiumEnd(email)).toBeNull();
    await deliver(
      checkoutEvent({ email, sessionId, type: 'checkout.session.async_payment_succeeded' }),
    );
    await deliver(checkoutEvent({ email, sessionId, type: 'checkout.session.completed' }));
    expect(await purchasesOf(email)).toBe(1);

    const failed = uniqueEmail('failed');
    await deliver(
      checkoutEvent({
        email: failed,
        type: 'checkout.session.async_payment_failed',
        paymentStatus: 'unpaid',
      }),
    );
    expect(await premiumEnd(failed)).toBeNull();
  });

  it('counts two different purchases of one member completing at the same moment', async () => {
    const email = uniqueEmail('both');
    await registerAndLogin(server.app, email, 'correct horse');
    const before = Date.now();
    await Promise.all([
      deliver(checkoutEvent({ email, planId: '1-week' })),
      deliver(checkoutEvent({ email, planId: '1-month' })),
    ]);
    expect(await purchasesOf(email)).toBe(2);
    const end = (await premiumEnd(email))!.getTime();
    expect(end).toBeGreaterThanOrEqual(before + 37 * DAY_MS - 1000);
    expect(end).toBeLessThanOrEqual(Date.now() + 37 * DAY_MS + 1000);
  });

  it('creates one account for two guest purchases of one new email (in two cases) at once', async () => {
    const email = uniqueEmail('twice');
    await Promise.all([
      deliver(checkoutEvent({ email, planId: '1-week' })),
      deliver(checkoutEvent({ email: email.toUpperCase(), planId: '1-day' })),
    ]);
    const accounts = await server.app.database.db
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .execute();
    expect(accounts).toHaveLength(1);
    expect(await purchasesOf(email)).toBe(2);
  });

  it('needs a signed-in caller for the purchase list', async () => {
    const unauthenticated = await server.app.inject({
      method: 'GET',
      url: '/api/users/subscriptions/personal',
    });
    expect(unauthenticated.statusCode).toBe(401);
  });
});
