import type { PurchasesResponse } from '@kegel/contract';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { getProfile } from '../support/accounts';
import { makeMember } from '../support/desk-actions';
import { appStoreEnv, deliverNotification } from '../support/app-store';
import { captureLog, LOG_LEVEL } from '../support/log-capture';
import { startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

const SUPPORT_EMAIL = 'help@kegel.test';

/**
 * "I bought on my iPhone": a member claims an App Store purchase by the order id of Apple's
 * receipt email. The server runs its own App Store sandbox, which answers Look Up Order ID.
 */
describe.each(testDatabaseKinds)('claiming an iPhone purchase by order id on $name', (kind) => {
  let server: TestServer;
  let sandbox: AppStoreSandbox;
  const log = captureLog();
  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: { SUPPORT_EMAIL },
      logger: log.logger,
    });
    const running = server.app.appStoreSandbox;
    if (!running) throw new Error('expected the App Store sandbox');
    sandbox = running;
  });
  afterAll(() => server.close());

  function claim(accessToken: string, orderId: unknown, app = server.app) {
    return app.inject({
      method: 'POST',
      url: '/api/payments/apple/claim',
      headers: { authorization: `Bearer ${accessToken}` },
      payload: { orderId },
    });
  }

  async function premiumEnd(accessToken: string): Promise<string | null> {
    return (await getProfile(server.app, accessToken)).json<{
      subscriptionEndDate: string | null;
    }>().subscriptionEndDate;
  }

  async function purchasesOf(accessToken: string) {
    const list = await server.app.inject({
      method: 'GET',
      url: '/api/users/subscriptions/personal',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    return list.json<PurchasesResponse>().data;
  }

  function bindingOf(originalTransactionId: string) {
    return server.app.database.db
      .selectFrom('appStoreSubscriptions')
      .select('userId')
      .where('originalTransactionId', '=', originalTransactionId)
      .executeTakeFirst();
  }

  /** The end of the sandbox subscription's latest period, as Apple signed it. */
  async function expiryOf(orderId: string): Promise<string> {
    const [found] = (await server.app.appStoreServerApi?.lookUpOrder(orderId)) ?? [];
    if (!found?.payload.expiresDate) throw new Error(`no expiry for order ${orderId}`);
    return new Date(found.payload.expiresDate).toISOString();
  }

  it('binds the purchase to the member, lists it and answers his premium end; again, the same', async () => {
    const { userId: id, accessToken } = await makeMember(server.app, 'claims');
    const { originalTransactionId, orderId } = await sandbox.subscribe({
      productId: 'premium.month',
      deliver: false,
    });
    const expiresAt = await expiryOf(orderId);

    // As typed from the email: lower case, spaces around it.
    const response = await claim(accessToken, `  ${orderId.toLowerCase()} `);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ subscriptionEndDate: expiresAt });
    expect(await premiumEnd(accessToken)).toBe(expiresAt);
    expect(await purchasesOf(accessToken)).toEqual([
      { name: '1 Month', provider: 'Apple', createdAt: expect.any(String), expiresAt },
    ]);
    expect(await bindingOf(originalTransactionId)).toEqual({ userId: id });
    expect(log.find(LOG_LEVEL.info, /purchase claimed by order id/)).toEqual([
      expect.objectContaining({ userId: id, originalTransactionIds: [originalTransactionId] }),
    ]);

    const again = await claim(accessToken, orderId);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ subscriptionEndDate: expiresAt });
    expect(await purchasesOf(accessToken)).toHaveLength(1);
  });

  it('refuses a purchase of another account with 409 naming support, and changes nothing', async () => {
    const owner = await makeMember(server.app, 'claim-owner');
    const other = await makeMember(server.app, 'claim-other');
    const { originalTransactionId, orderId } = await sandbox.subscribe({
      productId: 'premium.month',
      deliver: false,
    });
    expect((await claim(owner.accessToken, orderId)).statusCode).toBe(200);
    const ownersEnd = await premiumEnd(owner.accessToken);

    const refused = await claim(other.accessToken, orderId);
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ message: string }>().message).toBe(
      `This App Store purchase belongs to another account. Please contact support at ${SUPPORT_EMAIL}.`,
    );
    expect(await premiumEnd(other.accessToken)).toBeNull();
    expect(await purchasesOf(other.accessToken)).toEqual([]);
    expect(await premiumEnd(owner.accessToken)).toBe(ownersEnd);
    expect(await bindingOf(originalTransactionId)).toEqual({ userId: owner.userId });
  });

  it('refuses a purchase whose appAccountToken names another account, before any binding', async () => {
    const buyer = await makeMember(server.app, 'claim-token-buyer');
    const other = await makeMember(server.app, 'claim-token-other');
    const { originalTransactionId, orderId } = await sandbox.subscribe({
      productId: 'premium.month',
      appAccountToken: buyer.userId,
      deliver: false,
    });
    const refused = await claim(other.accessToken, orderId);
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ message: string }>().message).toContain(SUPPORT_EMAIL);
    expect(await premiumEnd(other.accessToken)).toBeNull();
    expect(await bindingOf(originalTransactionId)).toBeUndefined();

    expect((await claim(buyer.accessToken, orderId)).statusCode).toBe(200);
    expect(await bindingOf(originalTransactionId)).toEqual({ userId: buyer.userId });
  });

  it('answers 404 for an order Apple does not know, and 400 naming the order id for a malformed one', async () => {
    const { accessToken } = await makeMember(server.app, 'claim-unknown');
    const unknown = await claim(accessToken, 'ZZZZZZZZZZ');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json<{ message: string }>().message).toBe(
      "We could not find an App Store purchase with this order ID. Check the Order ID in Apple's receipt email.",
    );
    for (const malformed of ['MK5TTT', 'MK5TTT-WJH', 'MK5TTTVWJH1234', '', 42]) {
      const refused = await claim(accessToken, malformed);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({
        message: ['Order ID must be 10 to 12 letters and digits, like MK5TTTVWJH'],
      });
    }
    expect(await premiumEnd(accessToken)).toBeNull();
  });

  it('allows 10 tries per member and hour: the 11th answers 429, another member still may', async () => {
    const { accessToken } = await makeMember(server.app, 'claim-tries');
    const { orderId } = await sandbox.subscribe({ productId: 'premium.month', deliver: false });
    for (let attempt = 1; attempt <= 10; attempt += 1)
      expect((await claim(accessToken, 'ZZZZZZZZZZ')).statusCode).toBe(404);
    const limited = await claim(accessToken, orderId);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(await premiumEnd(accessToken)).toBeNull();

    const other = await makeMember(server.app, 'claim-tries-other');
    expect((await claim(other.accessToken, orderId)).statusCode).toBe(200);
  });

  it('applies the notifications kept for a subscription bound to nobody once it is claimed', async () => {
    const { accessToken } = await makeMember(server.app, 'claim-pending');
    const { originalTransactionId, orderId } = await sandbox.subscribe({
      productId: 'premium.month',
      deliver: false,
    });
    // The renewal's notification arrives while the subscription is bound to nobody: kept.
    const renewal = await sandbox.renew(originalTransactionId, { deliver: false });
    expect((await deliverNotification(server.app, renewal)).statusCode).toBe(200);
    const renewalOrderId = sandbox.orderIdsOf(originalTransactionId)[1] ?? '';
    const renewedUntil = await expiryOf(renewalOrderId);
    expect(await premiumEnd(accessToken)).toBeNull();

    // The first order's id, from the first receipt email: the renewal comes with it.
    const response = await claim(accessToken, orderId);
    expect(response.json()).toEqual({ subscriptionEndDate: renewedUntil });
    expect(await premiumEnd(accessToken)).toBe(renewedUntil);
    expect(await purchasesOf(accessToken)).toHaveLength(2);
    const pending = await server.app.database.db
      .selectFrom('appStoreNotifications')
      .select('appliedAt')
      .where('originalTransactionId', '=', originalTransactionId)
      .execute();
    expect(pending).toEqual([{ appliedAt: expect.any(Date) }]);
  });

  it('answers 404 saying so while order lookups are off', async () => {
    const withoutKey = await startTestServer(kind, { env: appStoreEnv(sandbox) });
    try {
      expect(withoutKey.app.appStoreServerApi).toBeNull();
      const { accessToken } = await makeMember(withoutKey.app, 'claim-off');
      const response = await claim(accessToken, 'MK5TTTVWJH', withoutKey.app);
      expect(response.statusCode).toBe(404);
      expect(response.json<{ message: string }>().message).toBe(
        'App Store purchases are not enabled on this server',
      );
    } finally {
      await withoutKey.close();
    }
  });
});
