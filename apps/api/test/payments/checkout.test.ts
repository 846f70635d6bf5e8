import type { CheckoutSession } from '@kegel/contract';
import { startStripeSandbox, type StripeSandbox } from '@kegel/sandbox/stripe-sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { login, post, register } from '../support/accounts';
import { payOnSandboxPage } from '../support/stripe-events';
import {
  startTestServer,
  TEST_PUBLIC_URL,
  TEST_STRIPE_WEBHOOK_SECRET,
  type TestServer,
  uniqueEmail,
} from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

/**
 * Checkout through the official Stripe SDK and the local Stripe sandbox: the session, the hosted
 * page with Stripe's test cards, the signed webhook back to the listening server, the grant.
 */
describe.each(testDatabaseKinds)('checkout through the Stripe sandbox on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    // Listening for real: the sandbox delivers its webhooks over HTTP.
    await server.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => server.close());

  async function startCheckout(email: string, planId = '1-week'): Promise<string> {
    const response = await post(server.app, '/payments/stripe/new', { planId, email, price: 0 });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ paymentURL: string }>().paymentURL;
  }

  async function premiumEndOf(email: string): Promise<Date | null> {
    for (let wait = 0; wait < 100; wait += 1) {
      const row = await server.app.database.db
        .selectFrom('users')
        .select('subscriptionEndDate')
        .where('email', '=', email)
        .executeTakeFirst();
      if (row?.subscriptionEndDate) return row.subscriptionEndDate;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return null;
  }

  it("refuses a missing or unknown plan with 'Plan is required'", async () => {
    const missing = await post(server.app, '/payments/stripe/new', { email: uniqueEmail() });
    expect(missing.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: ['Plan is required'],
      fields: [{ field: 'planId', message: 'Plan is required' }],
    });
    const unknown = await post(server.app, '/payments/stripe/new', {
      planId: 'free-forever',
      email: uniqueEmail(),
    });
    expect(unknown.json()).toMatchObject({ statusCode: 400, message: 'Plan is required' });
  });

  it('sells a plan to a visitor: hosted page, test card, signed webhook, account and premium', async () => {
    const email = uniqueEmail('visitor').replace('@', '+pay@');
    const paymentURL = await startCheckout(email);
    const page = await (await fetch(paymentURL)).text();
    expect(page).toContain('Kegel Coach Premium — 1 Week');
    expect(page).toContain('$9.99');

    const declined = await payOnSandboxPage(paymentURL, '4000 0000 0000 0002');
    expect(await declined.text()).toContain('Your card was declined.');

    const paid = await payOnSandboxPage(paymentURL, '4242 4242 4242 4242');
    expect(paid.status).toBe(303);
    const location = new URL(paid.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${TEST_PUBLIC_URL}/purchase/complete`);
    expect(location.searchParams.get('registered')).toBe('false');
    expect(location.searchParams.get('email')).toBe(email);
    const sessionId = location.searchParams.get('session') ?? '';
    expect(sessionId).toMatch(/^cs_test_/);

    const end = await premiumEndOf(email);
    expect(end).not.toBeNull();
    const mail = await server.inbox.waitFor((message) => message.to.includes(email));
    const password = /Sign in with this password: (\S+)/.exec(mail.text)?.[1] ?? '';
    const tokens = await login(server.app, email, password);

    const described = await server.app.inject({
      method: 'GET',
      url: `/api/payments/stripe/session/${sessionId}`,
    });
    expect(described.json<CheckoutSession>()).toEqual({
      id: sessionId,
      durationDays: 7,
      beginsAt: expect.any(String),
      providerType: 'Stripe',
      price: 9.99,
    });
    expect(described.body).not.toContain(email);

    const portal = await server.app.inject({
      method: 'GET',
      url: '/api/payments/stripe/customer-portal',
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    const portalPage = await (await fetch(portal.json<{ url: string }>().url)).text();
    expect(portalPage).toContain('Kegel Coach Premium — 1 Week');
    expect(portalPage).toContain('$9.99');
  });

  it("gives a guest's account the language of the page he bought on, and Stripe's page too", async () => {
    const email = uniqueEmail('spanish-guest');
    const started = await server.app.inject({
      method: 'POST',
      url: '/api/payments/stripe/new',
      headers: { 'accept-language': 'es-ES,es;q=0.9' },
      payload: { planId: '1-week', email },
    });
    expect(started.statusCode, started.body).toBe(200);
    const paymentURL = started.json<{ paymentURL: string }>().paymentURL;
    const sessionId = new URL(paymentURL).pathname.split('/').pop() ?? '';
    const session = await (await server.app.stripe()).checkout.sessions.retrieve(sessionId);
    expect(session.locale).toBe('es');
    expect(session.metadata?.locale).toBe('es');

    expect((await payOnSandboxPage(paymentURL)).status).toBe(303);
    expect(await premiumEndOf(email)).not.toBeNull();
    const account = await server.app.database.db
      .selectFrom('users')
      .select('locale')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(account.locale).toBe('es');
  });

  it('opens Stripe Checkout in German for a German page, and the portal in his own language', async () => {
    const email = uniqueEmail('german-member');
    await register(server.app, email, 'correct horse');
    const tokens = await login(server.app, email, 'correct horse');
    const started = await server.app.inject({
      method: 'POST',
      url: '/api/payments/stripe/new',
      headers: { 'accept-language': 'de' },
      payload: { planId: '1-week', email },
    });
    expect(started.statusCode, started.body).toBe(200);
    const paymentURL = started.json<{ paymentURL: string }>().paymentURL;
    const sessionId = new URL(paymentURL).pathname.split('/').pop() ?? '';
    expect((await (await server.app.stripe()).checkout.sessions.retrieve(sessionId)).locale).toBe(
      'de',
    );
    await payOnSandboxPage(paymentURL);
    expect(await premiumEndOf(email)).not.toBeNull();

    // He registered in English: his portal is English, whatever page he opens it from.
    const createPortal = vi.spyOn((await server.app.stripe()).billingPortal.sessions, 'create');
    try {
      const portal = await server.app.inject({
        method: 'GET',
        url: '/api/payments/stripe/customer-portal',
        headers: { authorization: `Bearer ${tokens.accessToken}`, 'accept-language': 'de' },
      });
      expect(portal.statusCode, portal.body).toBe(200);
      expect(createPortal.mock.calls[0]?.[0]).toMatchObject({ locale: 'en' });
    } finally {
      createPortal.mockRestore();
    }
  });

  it('grants nothing for a declined card', async () => {
    const email = uniqueEmail('declined');
    const paymentURL = await startCheckout(email);
    await payOnSandboxPage(paymentURL, '4000000000000002');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const row = await server.app.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it('sends a member back with registered=true and one Stripe customer across purchases', async () => {
    const email = uniqueEmail('member');
    await register(server.app, email, 'correct horse');
    const first = await startCheckout(email);
    const second = await startCheckout(email, '1-day');
    const paid = await payOnSandboxPage(first, '4242424242424242');
    expect(new URL(paid.headers.get('location') ?? '').searchParams.get('registered')).toBe('true');
    await payOnSandboxPage(second, '4242424242424242');
    // Both webhooks arrive and both purchases count (1 Week + 1 Day).
    await expect
      .poll(
        async () =>
          (
            await server.app.database.db
              .selectFrom('purchases')
              .innerJoin('users', 'users.id', 'purchases.userId')
              .select('purchases.days')
              .where('users.email', '=', email)
              .execute()
          ).length,
        { timeout: 10_000 },
      )
      .toBe(2);
    const customers = await server.app.database.db
      .selectFrom('users')
      .select('stripeCustomerId')
      .where('email', '=', email)
      .execute();
    expect(customers[0]?.stripeCustomerId).toMatch(/^cus_/);
  });

  it('answers 404 for a session it does not know', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/payments/stripe/session/cs_test_nope',
    });
    expect(response.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Payment not found',
    });
  });
});

describe('checkout through a Stripe stand-in at STRIPE_API_URL', () => {
  const kind = testDatabaseKinds[0]!;
  let sandbox: StripeSandbox;
  let server: TestServer;
  beforeAll(async () => {
    // Outside the server, as `npm run cluster` runs one for all its processes.
    sandbox = await startStripeSandbox({
      webhookSecret: TEST_STRIPE_WEBHOOK_SECRET,
      // Nothing is paid here, so nothing is delivered.
      webhookUrl: 'http://127.0.0.1:1/unused',
    });
    server = await startTestServer(kind, {
      env: { STRIPE_SECRET_KEY: 'sk_test_stand_in', STRIPE_API_URL: sandbox.baseUrl },
    });
  });
  afterAll(async () => {
    await server.close();
    await sandbox.close();
  });

  it('makes the session there, and reads it back from there', async () => {
    const response = await post(server.app, '/payments/stripe/new', {
      planId: '1-month',
      email: uniqueEmail('stand-in'),
    });
    expect(response.statusCode, response.body).toBe(200);
    const paymentURL = response.json<{ paymentURL: string }>().paymentURL;
    expect(paymentURL.startsWith(`${sandbox.baseUrl}/checkout/cs_test_`)).toBe(true);
    const sessionId = paymentURL.split('/').pop();
    const described = await server.app.inject({
      method: 'GET',
      url: `/api/payments/stripe/session/${sessionId}`,
    });
    expect(described.statusCode).toBe(200);
    expect(described.json<CheckoutSession>()).toMatchObject({ id: sessionId, durationDays: 30 });
  });
});
