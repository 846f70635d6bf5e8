import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  changeEmailThroughLink,
  getProfile,
  login,
  post,
  registerAndLogin,
} from '../support/accounts';
import { payOnSandboxPage } from '../support/stripe-events';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Money end to end through the official SDK and the Stripe sandbox: the hosted page, the
 * signed webhooks it delivers back to the listening server, refunds made through Stripe's API.
 */
describe.each(testDatabaseKinds)('money through the Stripe sandbox on $name', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    await server.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => server.close());

  async function startCheckout(email: string, planId = '1-week'): Promise<string> {
    const response = await post(server.app, '/payments/stripe/new', { planId, email });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ paymentURL: string }>().paymentURL;
  }

  async function pay(paymentURL: string): Promise<void> {
    const paid = await payOnSandboxPage(paymentURL);
    expect(paid.status).toBe(303);
  }

  function accountOf(email: string) {
    return server.app.database.db
      .selectFrom('users')
      .select(['id', 'subscriptionEndDate', 'stripeCustomerId'])
      .where('email', '=', email)
      .executeTakeFirst();
  }

  function purchasesOf(userId: string) {
    return server.app.database.db
      .selectFrom('purchases')
      .select(['id', 'paymentIntentId', 'expiresAt', 'revokedAt'])
      .where('userId', '=', userId)
      .orderBy('createdAt')
      .execute();
  }

  it('grants to the member who changed his email, and Stripe gets the new email', async () => {
    const oldEmail = uniqueEmail('before-change');
    const newEmail = uniqueEmail('after-change');
    const tokens = await registerAndLogin(server.app, oldEmail, 'correct horse');
    await pay(await startCheckout(oldEmail));
    const member = (await accountOf(oldEmail))!;
    await expect.poll(async () => (await purchasesOf(member.id)).length).toBe(1);
    const customerId = (await accountOf(oldEmail))!.stripeCustomerId!;

    await changeEmailThroughLink(server, tokens.accessToken, {
      newEmail,
      password: 'correct horse',
    });
    // The customer follows the account's email (after the change commits, not within it).
    await expect
      .poll(async () => {
        const customer = await (await server.app.stripe()).customers.retrieve(customerId);
        return 'email' in customer ? customer.email : undefined;
      })
      .toBe(newEmail);

    const paymentURL = await startCheckout(newEmail);
    const page = await (await fetch(paymentURL)).text();
    expect(page).toContain(newEmail);
    expect(page).not.toContain(oldEmail);
    const endBefore = (await accountOf(newEmail))!.subscriptionEndDate!.getTime();
    await pay(paymentURL);
    await expect.poll(async () => (await purchasesOf(member.id)).length).toBe(2);
    expect((await accountOf(newEmail))!.subscriptionEndDate!.getTime()).toBe(
      endBefore + 7 * DAY_MS,
    );
    expect(await accountOf(oldEmail)).toBeUndefined();
  });

  it('takes a refund made through Stripe out of the premium, also of a purchase recorded without its PaymentIntent', async () => {
    const email = uniqueEmail('refunded');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    await pay(await startCheckout(email, '1-day'));
    const member = (await accountOf(email))!;
    await expect.poll(async () => (await purchasesOf(member.id)).length).toBe(1);
    await pay(await startCheckout(email, '1-month'));
    await expect.poll(async () => (await purchasesOf(member.id)).length).toBe(2);
    const [kept, refunded] = await purchasesOf(member.id);
    expect(refunded!.paymentIntentId).toMatch(/^pi_/);
    // As purchases made before PaymentIntents were recorded: found through Stripe's sessions.
    await server.app.database.db
      .updateTable('purchases')
      .set({ paymentIntentId: null })
      .where('id', '=', refunded!.id)
      .execute();
    const endBefore = (await accountOf(email))!.subscriptionEndDate!.getTime();

    const refund = await (
      await server.app.stripe()
    ).refunds.create({
      payment_intent: refunded!.paymentIntentId!,
    });
    expect(refund.status).toBe('succeeded');
    await expect
      .poll(async () => (await accountOf(email))!.subscriptionEndDate!.getTime())
      .toBe(endBefore - 30 * DAY_MS);
    const after = await purchasesOf(member.id);
    expect(after[0]).toEqual(kept);
    expect(after[1]!.revokedAt).toBeInstanceOf(Date);
    expect(after[1]!.paymentIntentId).toBe(refunded!.paymentIntentId);
    const profile = (await getProfile(server.app, tokens.accessToken)).json<{
      subscriptionEndDate: string;
    }>();
    expect(new Date(profile.subscriptionEndDate).getTime()).toBe(kept!.expiresAt.getTime());

    // The portal lists the refund.
    const portal = await server.app.inject({
      method: 'GET',
      url: '/api/payments/stripe/customer-portal',
      headers: {
        authorization: `Bearer ${(await login(server.app, email, 'correct horse')).accessToken}`,
      },
    });
    expect(await (await fetch(portal.json<{ url: string }>().url)).text()).toContain('Refunded');
  });
});
