import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { login, post, registerAndLogin } from '../support/accounts';
import { payOnSandboxPage } from '../support/stripe-events';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

/**
 * A Stripe customer that Stripe reports deleted is never used again: a checkout opened before
 * its account was deleted, and paid after, brings the account back tied to that customer; the
 * next checkout or portal visit gets a new customer instead of Stripe's "No such customer".
 */
describe.each(testDatabaseKinds)('deleted Stripe customers on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    // The Stripe sandbox delivers its webhooks to the listening server.
    await server.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => server.close());

  const db = () => server.app.database.db;

  async function stripeCustomerOf(email: string): Promise<string | null | undefined> {
    const user = await db()
      .selectFrom('users')
      .select('stripeCustomerId')
      .where('email', '=', email)
      .executeTakeFirst();
    return user?.stripeCustomerId;
  }

  async function startCheckout(email: string, accessToken?: string) {
    return post(server.app, '/payments/stripe/new', { planId: '1-week', email }, accessToken);
  }

  async function pay(paymentURL: string): Promise<void> {
    const paid = await payOnSandboxPage(paymentURL);
    expect(paid.status).toBe(303);
  }

  it('gives an account brought back by a checkout paid after its deletion a new customer', async () => {
    const email = uniqueEmail('came-back');
    const first = await registerAndLogin(server.app, email, 'correct horse');
    const opened = await startCheckout(email, first.accessToken);
    expect(opened.statusCode, opened.body).toBe(200);
    const deletedCustomer = await stripeCustomerOf(email);
    expect(deletedCustomer).toMatch(/^cus_/);

    // He deletes his account while the checkout's tab is still open, and Stripe forgets him.
    const deleted = await post(
      server.app,
      '/users/delete',
      { password: 'correct horse' },
      first.accessToken,
    );
    expect(deleted.statusCode, deleted.body).toBe(200);
    await expect
      .poll(
        async () =>
          (await (await server.app.stripe()).customers.retrieve(deletedCustomer!)).deleted,
      )
      .toBe(true);

    // Then he pays in that tab: the purchase makes him an account again, with a mailed password.
    await pay(opened.json<{ paymentURL: string }>().paymentURL);
    const mail = await server.inbox.waitFor(
      (message) => message.to.includes(email) && /password: \S+/.test(message.text),
    );
    const password = /Sign in with this password: (\S+)/.exec(mail.text)?.[1] ?? '';
    const tokens = await login(server.app, email, password);

    const portal = await server.app.inject({
      method: 'GET',
      url: '/api/payments/stripe/customer-portal',
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(portal.statusCode, portal.body).toBe(200);
    expect(portal.body).not.toMatch(/cus_/);
    // Stripe's portal page of a live customer, listing nothing of the deleted one's.
    const portalPage = await fetch(portal.json<{ url: string }>().url);
    expect(portalPage.status).toBe(200);

    const replacement = await stripeCustomerOf(email);
    expect(replacement).toMatch(/^cus_/);
    expect(replacement).not.toBe(deletedCustomer);
    const customer = await (await server.app.stripe()).customers.retrieve(replacement!);
    expect(customer.deleted).toBeFalsy();

    // Anyone starting a checkout for the address, signed in or not, pays as the new customer.
    const anonymous = await startCheckout(email);
    expect(anonymous.statusCode, anonymous.body).toBe(200);
    expect(anonymous.body).not.toMatch(/cus_/);
    const signedIn = await startCheckout(email, tokens.accessToken);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(await stripeCustomerOf(email)).toBe(replacement);
    const checkoutPage = await (
      await fetch(signedIn.json<{ paymentURL: string }>().paymentURL)
    ).text();
    expect(checkoutPage).toContain(email);
  });

  it('replaces a customer deleted in Stripe by someone else (the dashboard) on the next checkout', async () => {
    const email = uniqueEmail('dashboard-deleted');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    expect((await startCheckout(email, tokens.accessToken)).statusCode).toBe(200);
    const original = await stripeCustomerOf(email);
    await (await server.app.stripe()).customers.del(original!);

    const again = await startCheckout(email);
    expect(again.statusCode, again.body).toBe(200);
    const replacement = await stripeCustomerOf(email);
    expect(replacement).toMatch(/^cus_/);
    expect(replacement).not.toBe(original);
    // One replacement, however many calls find the old one gone.
    const [portal, checkout] = await Promise.all([
      server.app.inject({
        method: 'GET',
        url: '/api/payments/stripe/customer-portal',
        headers: { authorization: `Bearer ${tokens.accessToken}` },
      }),
      startCheckout(email, tokens.accessToken),
    ]);
    expect([portal.statusCode, checkout.statusCode]).toEqual([200, 200]);
    expect(await stripeCustomerOf(email)).toBe(replacement);
  });
});
