import type { PurchasesResponse } from '@kegel/contract';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile, registerAndLogin } from '../support/accounts';
import {
  appStoreEnv,
  claimsOf,
  deliverNotification,
  monthFrom,
  postTransaction,
  signedNotification,
  TEST_APP_APPLE_ID,
  transactionInside,
  transactionPayload,
  startTestAppStoreSandbox,
} from '../support/app-store';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What a replayed App Store payload may do (nothing, once it was applied), and the two App Store
 * environments as two namespaces of transaction ids: Apple numbers Sandbox and Production
 * transactions independently, so one id can name a purchase in each.
 */
describe.each(testDatabaseKinds)('App Store replays and environments on $name', (kind) => {
  let sandbox: AppStoreSandbox;
  let server: TestServer;
  beforeAll(async () => {
    sandbox = await startTestAppStoreSandbox({ appAppleId: TEST_APP_APPLE_ID });
    server = await startTestServer(kind, { env: appStoreEnv(sandbox) });
  });
  afterAll(async () => {
    await server.close();
    await sandbox.close();
  });

  async function member(label: string) {
    const email = uniqueEmail(label);
    const tokens = await registerAndLogin(server.app, email, 'correct horse');
    const { id } = await server.app.database.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    return { id, accessToken: tokens.accessToken };
  }

  async function premiumEnd(accessToken: string): Promise<string | null> {
    const profile = (await getProfile(server.app, accessToken)).json<{
      subscriptionEndDate: string | null;
    }>();
    return profile.subscriptionEndDate;
  }

  async function purchaseHistory(accessToken: string) {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/users/subscriptions/personal',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<PurchasesResponse>().data;
  }

  async function ledgerOf(userId: string): Promise<string[]> {
    const rows = await server.app.database.db
      .selectFrom('premiumLedger')
      .select('entry')
      .where('userId', '=', userId)
      .orderBy('sequence')
      .execute();
    return rows.map((row) => row.entry);
  }

  function iso(time: number): string {
    return new Date(time).toISOString();
  }

  it('adds no ledger row when an old, refunded transaction is posted again, one after another or at once', async () => {
    const buyer = await member('replayer');
    const { originalTransactionId, signedTransaction } = await sandbox.subscribe({
      productId: 'premium.month',
      appAccountToken: buyer.id,
      deliver: false,
    });
    const bought = await postTransaction(server.app, buyer.accessToken, signedTransaction);
    expect(bought.statusCode, bought.body).toBe(200);
    const { subscriptionEndDate } = bought.json<{ subscriptionEndDate: string | null }>();
    expect(subscriptionEndDate).not.toBeNull();
    // The same signed transaction again (the app restores): it applied once already.
    for (let post = 0; post < 3; post += 1) {
      expect(
        (await postTransaction(server.app, buyer.accessToken, signedTransaction)).json(),
      ).toEqual({ subscriptionEndDate });
    }
    expect(await ledgerOf(buyer.id)).toEqual(['period']);

    const refund = await sandbox.refund(originalTransactionId, { deliver: false });
    expect((await deliverNotification(server.app, refund)).statusCode).toBe(200);
    expect(await premiumEnd(buyer.accessToken)).toBeNull();
    const refunded = await purchaseHistory(buyer.accessToken);
    expect(refunded).toEqual([
      expect.objectContaining({ provider: 'Apple', refundedAt: expect.any(String) }),
    ]);
    const ledgerAfterRefund = await ledgerOf(buyer.id);
    expect(ledgerAfterRefund).toEqual(['period', 'revoke']);

    // The purchase's transaction as signed before the refund, 20 times one after another.
    for (let post = 0; post < 20; post += 1) {
      const replayed = await postTransaction(server.app, buyer.accessToken, signedTransaction);
      expect(replayed.statusCode, replayed.body).toBe(200);
      expect(replayed.json()).toEqual({ subscriptionEndDate: null });
    }
    expect(await ledgerOf(buyer.id)).toEqual(ledgerAfterRefund);

    // And 20 at once.
    const atOnce = await Promise.all(
      Array.from({ length: 20 }, () =>
        postTransaction(server.app, buyer.accessToken, signedTransaction),
      ),
    );
    expect(atOnce.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    expect(await ledgerOf(buyer.id)).toEqual(ledgerAfterRefund);

    // The refunded transaction as the refund notification carried it, and as the App Store
    // signs it again later (a restore on another day): Apple's word on it is known already.
    const revokedTransaction = transactionInside(refund);
    const revokedClaims = claimsOf(revokedTransaction);
    const signedAgain = Array.from({ length: 20 }, (_, index) =>
      sandbox.sign({
        ...revokedClaims,
        signedDate: (revokedClaims.signedDate as number) + 1000 * (index + 1),
      }),
    );
    for (const signed of [revokedTransaction, ...signedAgain]) {
      const posted = await postTransaction(server.app, buyer.accessToken, signed);
      expect(posted.statusCode, posted.body).toBe(200);
    }
    expect(await ledgerOf(buyer.id)).toEqual(ledgerAfterRefund);

    expect(await premiumEnd(buyer.accessToken)).toBeNull();
    expect(await purchaseHistory(buyer.accessToken)).toEqual(refunded);
  });

  /** A transaction id no other test uses, as Apple's are: digits. */
  function newTransactionId(): string {
    return String(3_000_000_000_000_000 + Math.floor(Math.random() * 1e15));
  }

  async function subscribeInProduction(customer: { id: string }, transactionId: string) {
    const now = Date.now();
    const production = monthFrom(now, {
      originalTransactionId: transactionId,
      appAccountToken: customer.id,
      environment: 'Production',
      expiresDate: now + 60 * DAY_MS,
    });
    const subscribed = await deliverNotification(
      server.app,
      signedNotification(sandbox, {
        type: 'SUBSCRIBED',
        subtype: 'INITIAL_BUY',
        transaction: production,
        environment: 'Production',
      }),
    );
    expect(subscribed.statusCode, subscribed.body).toBe(200);
    return production;
  }

  it('never lets a Sandbox notification touch the Production purchase of the same transaction id', async () => {
    const customer = await member('production');
    const tester = await member('tester');
    const sharedId = newTransactionId();
    const production = await subscribeInProduction(customer, sharedId);
    const customerHistory = await purchaseHistory(customer.accessToken);
    expect(customerHistory).toEqual([
      {
        name: '1 Month',
        provider: 'Apple',
        createdAt: expect.any(String),
        expiresAt: iso(production.expiresDate),
      },
    ]);

    // A tester subscribes in the Sandbox, where Apple gave his transaction the same id; then
    // the Sandbox refunds it.
    const testPurchase = monthFrom(Date.now(), {
      originalTransactionId: sharedId,
      appAccountToken: tester.id,
    });
    for (const notification of [
      { type: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: testPurchase },
      { type: 'REFUND', transaction: { ...testPurchase, revocationDate: Date.now() } },
    ]) {
      const delivered = await deliverNotification(
        server.app,
        signedNotification(sandbox, notification),
      );
      expect(delivered.statusCode, delivered.body).toBe(200);
    }

    expect(await premiumEnd(customer.accessToken)).toBe(iso(production.expiresDate));
    expect(await purchaseHistory(customer.accessToken)).toEqual(customerHistory);
    expect(await premiumEnd(tester.accessToken)).toBeNull();
    expect(await purchaseHistory(tester.accessToken)).toEqual([
      expect.objectContaining({
        provider: 'Apple',
        expiresAt: iso(testPurchase.expiresDate),
        refundedAt: expect.any(String),
      }),
    ]);
    // Each still posts his own transaction.
    const restored = await postTransaction(
      server.app,
      customer.accessToken,
      sandbox.sign(transactionPayload(production)),
    );
    expect(restored.json()).toEqual({ subscriptionEndDate: iso(production.expiresDate) });
    const testerRestored = await postTransaction(
      server.app,
      tester.accessToken,
      sandbox.sign(transactionPayload(testPurchase)),
    );
    expect(testerRestored.json()).toEqual({ subscriptionEndDate: null });
  });

  it('binds a Sandbox transaction without a token to its poster, though a Production subscription of that id is bound to another', async () => {
    const customer = await member('bound-production');
    const tester = await member('unbound-tester');
    const sharedId = newTransactionId();
    const production = await subscribeInProduction(customer, sharedId);
    const testPurchase = monthFrom(Date.now(), { originalTransactionId: sharedId });
    const posted = await postTransaction(
      server.app,
      tester.accessToken,
      sandbox.sign(transactionPayload(testPurchase)),
    );
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toEqual({ subscriptionEndDate: iso(testPurchase.expiresDate) });
    expect(await premiumEnd(customer.accessToken)).toBe(iso(production.expiresDate));
  });

  it('counts the same transaction id bought in the Sandbox and in Production as two purchases of one member', async () => {
    const { id, accessToken } = await member('both-environments');
    const sharedId = newTransactionId();
    const now = Date.now();
    const inSandbox = monthFrom(now - 10 * DAY_MS, {
      originalTransactionId: sharedId,
      appAccountToken: id,
    });
    const inProduction = monthFrom(now, {
      originalTransactionId: sharedId,
      appAccountToken: id,
      environment: 'Production',
    });
    for (const transaction of [inSandbox, inProduction]) {
      const posted = await postTransaction(
        server.app,
        accessToken,
        sandbox.sign(transactionPayload(transaction)),
      );
      expect(posted.statusCode, posted.body).toBe(200);
    }
    const history = await purchaseHistory(accessToken);
    expect(history.map((purchase) => purchase.expiresAt).sort()).toEqual([
      iso(inSandbox.expiresDate),
      iso(inProduction.expiresDate),
    ]);
    expect(await premiumEnd(accessToken)).toBe(iso(inProduction.expiresDate));

    // Refunding the Sandbox one takes only its period out.
    await deliverNotification(
      server.app,
      signedNotification(sandbox, {
        type: 'REFUND',
        transaction: { ...inSandbox, revocationDate: Date.now() },
      }),
    );
    const refunded = (await purchaseHistory(accessToken)).filter(
      (purchase) => purchase.refundedAt !== undefined,
    );
    expect(refunded.map((purchase) => purchase.expiresAt)).toEqual([iso(inSandbox.expiresDate)]);
    expect(await premiumEnd(accessToken)).toBe(iso(inProduction.expiresDate));
  });
});
