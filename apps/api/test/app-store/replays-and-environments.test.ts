import type { SubscriptionsResponse } from '@kegel/contract';
import { type AppStoreSandbox, startAppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile, registerAndLogin } from '../support/accounts';
import {
  appStoreEnv,
  claimsOf,
  deliverNotification,
  postTransaction,
  TEST_APP_APPLE_ID,
  TEST_BUNDLE_ID,
  transactionInside,
} from '../support/app-store';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

/**
 * What a replayed App Store payload may do (nothing, once it was applied), and the two App Store
 * environments as two namespaces of transaction ids: Apple numbers Sandbox and Production
 * transactions independently, so one id can name a purchase in each.
 */
describe.each(testDatabaseKinds)('App Store replays and environments on $name', (kind) => {
  let sandbox: AppStoreSandbox;
  let server: TestServer;
  beforeAll(async () => {
    sandbox = await startAppStoreSandbox({
      bundleId: TEST_BUNDLE_ID,
      appAppleId: TEST_APP_APPLE_ID,
      // Payloads are delivered by the tests themselves.
      notificationUrl: 'http://127.0.0.1:1/unused',
      products: [{ productId: 'premium.month', name: '1 Month', days: 30, priceMilliunits: 29990 }],
    });
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
    return response.json<SubscriptionsResponse>().data;
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
});
