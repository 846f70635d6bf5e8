import {
  APIException,
  AppStoreServerAPIClient,
  Environment,
} from '@apple/app-store-server-library';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { claimsOf, startTestAppStoreSandbox, TEST_BUNDLE_ID } from '../support/app-store';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The App Store sandbox's Get Notification History, as Apple's own client meets it: every
 * notification the sandbox signed, delivered or not, with its send attempts, 20 a page, a token
 * for the next page good only with the same body, and only to a bearer token Apple would take.
 */
describe("the App Store sandbox's Get Notification History", () => {
  let sandbox: AppStoreSandbox;
  let client: AppStoreServerAPIClient;
  const window = () => ({ startDate: Date.now() - DAY_MS, endDate: Date.now() + 1000 });

  beforeAll(async () => {
    sandbox = await startTestAppStoreSandbox();
    const { issuerId, keyId, privateKeyPem } = sandbox.serverApiCredentials;
    client = new AppStoreServerAPIClient(
      privateKeyPem,
      keyId,
      issuerId,
      TEST_BUNDLE_ID,
      Environment.SANDBOX,
    );
    // As the server's client does: the sandbox answers where Apple's host would.
    (client as unknown as { urlBase: string }).urlBase = sandbox.baseUrl;
  });
  afterAll(() => sandbox.close());

  it('lists every notification signed, oldest first, 20 a page, with what became of its sending', async () => {
    const { originalTransactionId } = await sandbox.subscribe({
      productId: 'premium.month',
      deliver: false,
    });
    const signed = [];
    for (let index = 0; index < 22; index += 1)
      signed.push(
        await sandbox.setAutoRenew(originalTransactionId, index % 2 === 1, { deliver: false }),
      );
    // Delivered to nothing that answers: a send that failed.
    signed.push(await sandbox.renew(originalTransactionId));
    const body = window();

    const first = await client.getNotificationHistory(null, body);
    expect(first.notificationHistory).toHaveLength(20);
    expect(first.hasMore).toBe(true);
    const second = await client.getNotificationHistory(first.paginationToken ?? '', body);
    expect(second.hasMore).toBe(false);
    const all = [...(first.notificationHistory ?? []), ...(second.notificationHistory ?? [])];
    expect(all).toHaveLength(24);
    expect(all.slice(1).map((item) => item.signedPayload)).toEqual(signed);
    expect(claimsOf(all[0]?.signedPayload ?? '').notificationType).toBe('SUBSCRIBED');
    expect(all[1]?.sendAttempts?.map((attempt) => attempt.sendAttemptResult)).toEqual([
      'NO_RESPONSE',
    ]);
    expect(all.at(-1)?.sendAttempts?.[0]?.sendAttemptResult).toBe('NO_RESPONSE');
  });

  it("refuses a page token with another request's body, and a window older than Apple keeps", async () => {
    const first = await client.getNotificationHistory(null, window());
    const other = { startDate: Date.now() - 2 * DAY_MS, endDate: Date.now() };
    await expect(
      client.getNotificationHistory(first.paginationToken ?? '', other),
    ).rejects.toMatchObject({ httpStatusCode: 400, apiError: 4000014 });
    await expect(
      client.getNotificationHistory(null, {
        startDate: Date.now() - 181 * DAY_MS,
        endDate: Date.now(),
      }),
    ).rejects.toMatchObject({ httpStatusCode: 400, apiError: 4000012 });
  });

  it('answers 401 to a call without a token Apple would take, and 500 when told to fail', async () => {
    const unsigned = await fetch(`${sandbox.baseUrl}/inApps/v1/notifications/history`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(window()),
    });
    expect(unsigned.status).toBe(401);

    sandbox.failNotificationHistoryRequests(1);
    const failed = await client
      .getNotificationHistory(null, window())
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(APIException);
    expect((failed as APIException).httpStatusCode).toBe(500);
    expect((await client.getNotificationHistory(null, window())).notificationHistory).not.toEqual(
      [],
    );
  });
});
