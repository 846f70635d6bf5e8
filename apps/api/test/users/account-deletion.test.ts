import type { IdentitySandbox } from '@kegel/sandbox/identity-sandbox';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { deleteAccountMessages } from '@kegel/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createStripeCustomerCleanUp } from '../../src/modules/account-deletion/stripe-customers';
import {
  changeEmailThroughLink,
  closeUndoWindows,
  getProfile,
  login,
  post,
  register,
  registerAndLogin,
  signedInDaysAgo,
} from '../support/accounts';
import {
  appStoreEnv,
  monthFrom,
  postTransaction,
  transactionPayload,
  startTestAppStoreSandbox,
} from '../support/app-store';
import {
  chargeRefundedEvent,
  checkoutEvent,
  deliverStripeEvent,
  newPaymentIntentId,
  payOnSandboxPage,
} from '../support/stripe-events';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * "Delete account" through HTTP: what it asks for, what goes, what stays for the books (tied to
 * no one), the Stripe customer deleted through the SDK and the sandbox, the mail, and the address
 * free to register again.
 */
describe.each(testDatabaseKinds)('account deletion on $name', (kind) => {
  let server: TestServer;
  let appStore: AppStoreSandbox;
  let identity: IdentitySandbox;
  beforeAll(async () => {
    appStore = await startTestAppStoreSandbox();
    server = await startTestServer(kind, { env: appStoreEnv(appStore) });
    // The Stripe sandbox delivers its webhooks to the listening server.
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    identity = server.app.identitySandbox!;
  });
  afterAll(async () => {
    await server.close();
    await appStore.close();
  });

  const db = () => server.app.database.db;

  function deleteAccount(accessToken: string, body: Record<string, unknown>) {
    return post(server.app, '/users/delete', body, accessToken);
  }

  async function idOf(email: string): Promise<string> {
    const user = await db()
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    return user.id;
  }

  /** Every row that names the member, table by table. */
  async function rowsOf(userId: string) {
    const count = async (
      table:
        | 'authSessions'
        | 'oneTimeCodes'
        | 'userIdentities'
        | 'premiumLedger'
        | 'purchases'
        | 'appStoreSubscriptions',
    ) => {
      const row = await db()
        .selectFrom(table)
        .select(sql<number>`count(*)::int`.as('n'))
        .where('userId', '=', userId)
        .executeTakeFirstOrThrow();
      return row.n;
    };
    return {
      users: (await db().selectFrom('users').select('id').where('id', '=', userId).execute())
        .length,
      sessions: await count('authSessions'),
      codes: await count('oneTimeCodes'),
      identities: await count('userIdentities'),
      ledger: await count('premiumLedger'),
      purchases: await count('purchases'),
      appStoreSubscriptions: await count('appStoreSubscriptions'),
    };
  }

  async function mailTo(address: string) {
    return db()
      .selectFrom('outboxEmails')
      .select(['template', 'sentAt'])
      .where(sql<string>`lower(recipient)`, '=', address.toLowerCase())
      .execute();
  }

  async function stripeCustomerOf(userId: string): Promise<string | null> {
    const user = await db()
      .selectFrom('users')
      .select('stripeCustomerId')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    return user.stripeCustomerId;
  }

  async function revenueCents(): Promise<number> {
    const row = await db()
      .selectFrom('purchases')
      .select(sql<number>`coalesce(sum(amount_cents), 0)::int`.as('total'))
      .executeTakeFirstOrThrow();
    return row.total;
  }

  async function buyThroughStripe(email: string): Promise<void> {
    const started = await post(server.app, '/payments/stripe/new', { planId: '1-week', email });
    expect(started.statusCode, started.body).toBe(200);
    const { paymentURL } = started.json<{ paymentURL: string }>();
    const paid = await payOnSandboxPage(paymentURL);
    expect(paid.status).toBe(303);
  }

  it('asks for the password, then erases the member and keeps his purchases for the books, tied to no one', async () => {
    const email = uniqueEmail('leaving');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const otherDevice = await login(server.app, email, 'correct horse');
    await buyThroughStripe(email);
    const userId = await idOf(email);
    await expect.poll(async () => (await rowsOf(userId)).purchases).toBe(1);
    const stripeCustomerId = await stripeCustomerOf(userId);
    expect(stripeCustomerId).toMatch(/^cus_/);
    // An email change waiting for its link, and a reset link: codes, and mail to two addresses.
    const requestedEmail = uniqueEmail('moving-to');
    const change = await post(
      server.app,
      '/auth/change-email',
      { newEmail: requestedEmail, password: 'correct horse' },
      tokens.accessToken,
    );
    expect(change.statusCode, change.body).toBe(200);
    await post(server.app, '/auth/reset-password', { email });
    const before = await rowsOf(userId);
    expect(before).toMatchObject({ users: 1, sessions: 2, purchases: 1 });
    expect(before.codes).toBeGreaterThan(0);
    const revenueBefore = await revenueCents();

    const missing = await deleteAccount(tokens.accessToken, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ message: deleteAccountMessages.passwordNeeded });
    const wrong = await deleteAccount(tokens.accessToken, { password: 'wrong horse' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ message: 'Current password is incorrect' });
    // A refusal changes nothing.
    expect(await rowsOf(userId)).toEqual(before);
    expect((await getProfile(server.app, tokens.accessToken)).statusCode).toBe(200);

    const deleted = await deleteAccount(tokens.accessToken, { password: 'correct horse' });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({ message: deleteAccountMessages.deleted });

    // Every session ended, on every device: access and refresh tokens alike.
    for (const pair of [tokens, otherDevice]) {
      expect((await getProfile(server.app, pair.accessToken)).statusCode).toBe(401);
      const refreshed = await post(server.app, '/auth/refresh', {
        refreshToken: pair.refreshToken,
      });
      expect(refreshed.statusCode).toBe(401);
    }
    // Nothing names him any more; the purchase stays, with no one's id.
    expect(await rowsOf(userId)).toEqual({
      users: 0,
      sessions: 0,
      codes: 0,
      identities: 0,
      ledger: 0,
      purchases: 0,
      appStoreSubscriptions: 0,
    });
    const kept = await db()
      .selectFrom('purchases')
      .select(['userId', 'amountCents', 'planName'])
      .where('providerPaymentId', 'like', 'cs_%')
      .where('userId', 'is', null)
      .execute();
    expect(kept).toContainEqual({ userId: null, amountCents: 999, planName: '1 Week' });
    expect(await revenueCents()).toBe(revenueBefore);
    const refreshTokensLeft = await db()
      .selectFrom('refreshTokens')
      .innerJoin('authSessions', 'authSessions.id', 'refreshTokens.sessionId')
      .select('refreshTokens.id')
      .where('authSessions.userId', '=', userId)
      .execute();
    expect(refreshTokensLeft).toEqual([]);

    // The confirmation goes to the address; every earlier mail record to it (and to the address
    // of the change that was waiting) is gone.
    const confirmation = await server.inbox.waitFor(
      (message) => message.to.includes(email) && /was deleted/.test(message.subject),
    );
    expect(confirmation.text).toContain('Records of your purchases are kept');
    expect(confirmation.text).not.toContain('App Store');
    expect((await mailTo(email)).map((mail) => mail.template)).toEqual(['account-deleted']);
    expect(await mailTo(requestedEmail)).toEqual([]);

    // Stripe forgets the customer too (after the commit, not within it), and nothing waits.
    await expect
      .poll(async () => {
        const customer = await (await server.app.stripe()).customers.retrieve(stripeCustomerId!);
        return customer.deleted === true;
      })
      .toBe(true);
    await expect
      .poll(() => db().selectFrom('stripeCustomerDeletions').select('customerId').execute())
      .not.toContainEqual({ customerId: stripeCustomerId });

    // Deleting twice: the session is gone with the account.
    const again = await deleteAccount(tokens.accessToken, { password: 'correct horse' });
    expect(again.statusCode).toBe(401);

    // The old password opens nothing; the address registers anew, as a new account.
    const oldLogin = await post(server.app, '/auth/local/login/email', {
      email,
      password: 'correct horse',
    });
    expect(oldLogin.statusCode).toBe(401);
    expect(oldLogin.json()).toMatchObject({ message: 'Invalid email or password' });
    await register(server.app, email, 'another strong one');
    const reborn = await login(server.app, email, 'another strong one');
    const profile = (await getProfile(server.app, reborn.accessToken)).json<{
      id: string;
      subscriptionEndDate: string | null;
    }>();
    expect(profile.id).not.toBe(userId);
    // The web pass died with the old account.
    expect(profile.subscriptionEndDate).toBeNull();
    const history = await server.app.inject({
      method: 'GET',
      url: '/api/users/subscriptions/personal',
      headers: { authorization: `Bearer ${reborn.accessToken}` },
    });
    expect(history.json()).toEqual({ data: [] });
  });

  it('leaves the mail of whoever now holds an address his unconfirmed email change named', async () => {
    const email = uniqueEmail('leaving-mid-change');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const namedEmail = uniqueEmail('named-then-taken');
    const change = await post(
      server.app,
      '/auth/change-email',
      { newEmail: namedEmail, password: 'correct horse' },
      tokens.accessToken,
    );
    expect(change.statusCode, change.body).toBe(200);
    // Someone else registers the address the change named, and asks for a reset there.
    await register(server.app, namedEmail, 'someone else entirely');
    await post(server.app, '/auth/reset-password', { email: namedEmail });
    const theirs = (await mailTo(namedEmail)).filter(
      (mail) => !mail.template.startsWith('email-change'),
    );
    expect(theirs.length).toBeGreaterThan(0);

    const deleted = await deleteAccount(tokens.accessToken, { password: 'correct horse' });
    expect(deleted.statusCode, deleted.body).toBe(200);

    const left = (await mailTo(namedEmail)).map((mail) => mail.template);
    for (const mail of theirs) expect(left).toContain(mail.template);
  });

  it('forgets the mail to the addresses he had before, which named the one he moved to', async () => {
    const oldEmail = uniqueEmail('leaving-moved-from');
    const tokens = await registerAndLogin(server.app, oldEmail, 'correct horse');
    const newEmail = uniqueEmail('leaving-moved-to');
    await changeEmailThroughLink(server, tokens.accessToken, {
      newEmail,
      password: 'correct horse',
    });
    // The notice to the old address, which names the new one.
    expect((await mailTo(oldEmail)).length).toBeGreaterThan(0);
    // The owner, on his long-standing device, closes the old address's undo window first.
    await signedInDaysAgo(server, tokens.accessToken, 8);
    expect((await closeUndoWindows(server, tokens.accessToken)).statusCode).toBe(200);

    const deleted = await deleteAccount(tokens.accessToken, { password: 'correct horse' });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await mailTo(oldEmail)).toEqual([]);
    expect((await mailTo(newEmail)).map((mail) => mail.template)).toEqual(['account-deleted']);
  });

  it('leaves no Stripe customer behind when the account goes while its first checkout makes one', async () => {
    const email = uniqueEmail('leaving-mid-checkout');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const customers = (await server.app.stripe()).customers;
    const create = customers.create.bind(customers);
    let madeForHim: string | undefined;
    // The member deletes his account (another tab) just as Stripe answers with his new customer.
    customers.create = async (...args: Parameters<typeof create>) => {
      const customer = await create(...args);
      madeForHim = customer.id;
      const deleted = await deleteAccount(tokens.accessToken, { password: 'correct horse' });
      expect(deleted.statusCode, deleted.body).toBe(200);
      return customer;
    };
    let started;
    try {
      started = await post(server.app, '/payments/stripe/new', { planId: '1-week', email });
    } finally {
      customers.create = create;
    }
    // The checkout goes on as a newcomer's, and the customer made for the gone account is gone.
    expect(started.statusCode, started.body).toBe(200);
    expect(madeForHim).toMatch(/^cus_/);
    const customer = await (await server.app.stripe()).customers.retrieve(madeForHim!);
    expect(customer.deleted).toBe(true);
  });

  it('deletes the Stripe customer later when Stripe does not answer at the time', async () => {
    const email = uniqueEmail('leaving-stripe-down');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    await buyThroughStripe(email);
    const userId = await idOf(email);
    await expect.poll(async () => (await rowsOf(userId)).purchases).toBe(1);
    const stripeCustomerId = await stripeCustomerOf(userId);
    const pending = () =>
      db()
        .selectFrom('stripeCustomerDeletions')
        .select(['attempts', 'lastError'])
        .where('customerId', '=', stripeCustomerId!)
        .execute();

    const customers = (await server.app.stripe()).customers;
    const del = customers.del.bind(customers);
    customers.del = () => Promise.reject(new Error('Stripe is down'));
    try {
      const deleted = await deleteAccount(tokens.accessToken, { password: 'correct horse' });
      expect(deleted.statusCode, deleted.body).toBe(200);
      // The account is gone at once; the customer waits, with why.
      await expect.poll(async () => (await pending())[0]?.lastError).toBe('Stripe is down');
    } finally {
      customers.del = del;
    }
    expect(
      (await (await server.app.stripe()).customers.retrieve(stripeCustomerId!)).deleted,
    ).toBeFalsy();

    // A later run (customer-deletion-retries.ts runs it every 10 minutes) finds it due and deletes it.
    const payments = createStripeCustomerCleanUp({
      db: db(),
      stripe: server.app.stripe,
      log: server.app.log,
    });
    expect(await payments.retryCustomerDeletions()).toBe(0); // not due yet
    await db()
      .updateTable('stripeCustomerDeletions')
      .set({ nextAttemptAt: new Date(Date.now() - 1000) })
      .where('customerId', '=', stripeCustomerId!)
      .execute();
    expect(await payments.retryCustomerDeletions()).toBe(1);
    expect(await pending()).toEqual([]);
    expect((await (await server.app.stripe()).customers.retrieve(stripeCustomerId!)).deleted).toBe(
      true,
    );
  });

  it("keeps a refund of a deleted account's purchase in the books", async () => {
    const email = uniqueEmail('refunded-after');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const paymentIntentId = newPaymentIntentId();
    await deliverStripeEvent(server.app, checkoutEvent({ email, paymentIntentId }));
    expect(
      (await deleteAccount(tokens.accessToken, { password: 'correct horse' })).statusCode,
    ).toBe(200);
    const refunded = await deliverStripeEvent(
      server.app,
      chargeRefundedEvent({ paymentIntentId, amount: 999, amountRefunded: 999 }),
    );
    expect(refunded.statusCode, refunded.body).toBe(200);
    const purchase = await db()
      .selectFrom('purchases')
      .select(['userId', 'revokedAt', 'revokedReason'])
      .where('paymentIntentId', '=', paymentIntentId)
      .executeTakeFirstOrThrow();
    expect(purchase).toMatchObject({ userId: null, revokedReason: 'refund' });
    expect(purchase.revokedAt).toBeInstanceOf(Date);
  });

  it('deletes an account without a password only from a sign-in of the last 10 minutes', async () => {
    const email = uniqueEmail('google-leaving');
    const sub = `sub-${Date.now().toString(36)}`;
    const signIn = async () => {
      const code = await identity.issueGoogleCode({ sub, email, emailVerified: true });
      const response = await post(server.app, '/auth/oauth/google/verify-token', {
        code,
        clientType: 'WEB',
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ accessToken: string }>();
    };
    const stale = await signIn();
    const userId = await idOf(email);
    // As if he had signed in 11 minutes ago.
    await db()
      .updateTable('authSessions')
      .set({ createdAt: new Date(Date.now() - 11 * 60 * 1000) })
      .where('userId', '=', userId)
      .execute();
    const refused = await deleteAccount(stale.accessToken, {});
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ message: deleteAccountMessages.signInAgain });
    expect((await rowsOf(userId)).identities).toBe(1);

    const fresh = await signIn();
    const deleted = await deleteAccount(fresh.accessToken, {});
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await rowsOf(userId)).toMatchObject({ users: 0, identities: 0, sessions: 0 });
    // The same Google account signs up again, as a new member.
    await signIn();
    expect(await idOf(email)).not.toBe(userId);
  });

  it('says an App Store subscription is not cancelled, and goes on only once the member knows', async () => {
    const email = uniqueEmail('app-store-leaving');
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const userId = await idOf(email);
    const period = monthFrom(Date.now() - DAY_MS, { appAccountToken: userId });
    const posted = await postTransaction(
      server.app,
      tokens.accessToken,
      appStore.sign(transactionPayload(period)),
    );
    expect(posted.statusCode, posted.body).toBe(200);

    const unaware = await deleteAccount(tokens.accessToken, { password: 'correct horse' });
    expect(unaware.statusCode).toBe(409);
    expect(unaware.json()).toMatchObject({
      message: deleteAccountMessages.appStoreSubscriptionActive,
    });
    expect((await rowsOf(userId)).users).toBe(1);

    const aware = await deleteAccount(tokens.accessToken, {
      password: 'correct horse',
      keepsAppStoreSubscription: true,
    });
    expect(aware.statusCode, aware.body).toBe(200);
    const subscription = await db()
      .selectFrom('appStoreSubscriptions')
      .select('userId')
      .where('originalTransactionId', '=', period.originalTransactionId)
      .executeTakeFirstOrThrow();
    expect(subscription.userId).toBeNull();
    const mail = await server.inbox.waitFor(
      (message) => message.to.includes(email) && /was deleted/.test(message.subject),
    );
    expect(mail.text).toContain('Your App Store subscription is not cancelled by this');

    // He comes back on the same iPhone: the app posts the transaction, whose token still names
    // the deleted account; the subscription and its purchase become the new account's.
    const reborn = await registerAndLogin(server.app, email, 'another strong one');
    const restored = await postTransaction(
      server.app,
      reborn.accessToken,
      appStore.sign(transactionPayload(period)),
    );
    expect(restored.statusCode, restored.body).toBe(200);
    const profile = (await getProfile(server.app, reborn.accessToken)).json<{
      subscriptionEndDate: string | null;
    }>();
    expect(profile.subscriptionEndDate).toBe(new Date(period.expiresDate).toISOString());
  });

  it('needs a signed-in member and a password that is a string', async () => {
    expect((await post(server.app, '/users/delete', { password: 'x' })).statusCode).toBe(401);
    const tokens = await registerAndLogin(server.app, uniqueEmail('typed'), 'correct horse');
    const invalid = await deleteAccount(tokens.accessToken, { password: 42 });
    expect(invalid.statusCode).toBe(400);
  });
});
