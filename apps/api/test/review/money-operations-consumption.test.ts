// Adversarial review of the answers to Apple's refund requests (ADR 023): a request about a
// subscription that is another member's, one kept while the subscription was bound to nobody and
// then claimed by a consenting member, an account deleted while its answer waits, and a request
// replayed after it was answered. Nothing may reach Apple without the consent of the member the
// subscription is his. Each test fails if its attack works.
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createConsumptionReports } from '../../src/modules/app-store/consumption-reports';
import { registerAndLogin } from '../support/accounts';
import { deliverNotification, postTransaction } from '../support/app-store';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const PASSWORD = 'correct horse';

describe.each(testDatabaseKinds)('review: refund-request answers under attack on $name', (kind) => {
  let server: TestServer;
  let sandbox: AppStoreSandbox;
  beforeAll(async () => {
    server = await startTestServer(kind);
    const running = server.app.appStoreSandbox;
    if (!running) throw new Error('expected the App Store sandbox');
    sandbox = running;
  });
  afterAll(() => server.close());

  /** The job as every process runs it. */
  const runJob = () =>
    createConsumptionReports({
      db: server.app.database.db,
      serverApi: server.app.appStoreServerApi,
      refundPreference: { kind: 'none' },
      log: { info: () => {}, error: () => {} },
    }).runDueOnce();

  async function member(consent: boolean) {
    const { accessToken } = await registerAndLogin(
      server.app,
      uniqueEmail('refund-attack'),
      PASSWORD,
    );
    if (consent) {
      const response = await server.app.inject({
        method: 'PUT',
        url: '/api/users/preferences',
        headers: { authorization: `Bearer ${accessToken}` },
        payload: { appleConsumptionConsent: true },
      });
      expect(response.statusCode, response.body).toBe(200);
    }
    return { accessToken };
  }

  async function subscriptionOf(accessToken: string) {
    const bought = await sandbox.subscribe({ productId: 'premium.week', deliver: false });
    const posted = await postTransaction(server.app, accessToken, bought.signedTransaction);
    expect(posted.statusCode, posted.body).toBe(200);
    return bought;
  }

  async function askAppleForRefund(originalTransactionId: string): Promise<string> {
    const signedPayload = await sandbox.requestConsumption(originalTransactionId, {
      deliver: false,
      reason: 'UNSATISFIED_WITH_PURCHASE',
    });
    const response = await deliverNotification(server.app, signedPayload);
    expect(response.statusCode, response.body).toBe(200);
    return signedPayload;
  }

  const sentAbout = (transactionId: string) =>
    sandbox.consumptionReports().filter((report) => report.transactionId === transactionId);

  it("sends nothing about a non-consenting member's subscription, whoever else consents", async () => {
    const owner = await member(false);
    await member(true);
    const { originalTransactionId } = await subscriptionOf(owner.accessToken);
    await askAppleForRefund(originalTransactionId);
    await runJob();
    expect(sentAbout(originalTransactionId)).toEqual([]);
  });

  it('sends nothing for a request kept while the subscription was bound to nobody, once a consenting member claims it', async () => {
    const { originalTransactionId, orderId } = await sandbox.subscribe({
      productId: 'premium.week',
      deliver: false,
    });
    // Asked before anyone claimed it: consent was nobody's to give at the time of the request.
    await askAppleForRefund(originalTransactionId);
    const claimer = await member(true);
    const claimed = await server.app.inject({
      method: 'POST',
      url: '/api/payments/apple/claim',
      headers: { authorization: `Bearer ${claimer.accessToken}` },
      payload: { orderId },
    });
    expect(claimed.statusCode, claimed.body).toBe(200);
    await runJob();
    expect(sentAbout(originalTransactionId)).toEqual([]);
  });

  it('sends nothing once the account is deleted while its answer waits, nor for the request replayed', async () => {
    const owner = await member(true);
    const { originalTransactionId } = await subscriptionOf(owner.accessToken);
    const signedPayload = await askAppleForRefund(originalTransactionId);
    const deleted = await server.app.inject({
      method: 'POST',
      url: '/api/users/delete',
      headers: { authorization: `Bearer ${owner.accessToken}` },
      payload: { password: PASSWORD, keepsAppStoreSubscription: true },
    });
    expect(deleted.statusCode, deleted.body).toBeLessThan(300);
    await runJob();
    expect(sentAbout(originalTransactionId)).toEqual([]);
    // The same request delivered again (a retry of Apple's, or read back from its history).
    expect((await deliverNotification(server.app, signedPayload)).statusCode).toBe(200);
    await runJob();
    expect(sentAbout(originalTransactionId)).toEqual([]);
  });

  it('answers a replayed request once, after it was answered', async () => {
    const owner = await member(true);
    const { originalTransactionId } = await subscriptionOf(owner.accessToken);
    const signedPayload = await askAppleForRefund(originalTransactionId);
    await runJob();
    expect(sentAbout(originalTransactionId)).toHaveLength(1);
    for (let replay = 0; replay < 3; replay += 1) {
      expect((await deliverNotification(server.app, signedPayload)).statusCode).toBe(200);
      await runJob();
    }
    expect(sentAbout(originalTransactionId)).toHaveLength(1);
  });
});
