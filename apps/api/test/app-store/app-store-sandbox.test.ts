import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
  Environment,
  type JWSRenewalInfoDecodedPayload,
  type JWSTransactionDecodedPayload,
  type ResponseBodyV2DecodedPayload,
  SignedDataVerifier,
  VerificationException,
  VerificationStatus,
} from '@apple/app-store-server-library';
import { type AppStoreSandbox, startAppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The App Store sandbox on its own, its output checked by Apple's own verifier exactly as the API
 * would run it (offline: enableOnlineChecks false, dates checked against each signedDate): the
 * signed transactions, renewal infos and notifications of each subscription event, the
 * look-alike chain refused, Production's app id, deliveries retried, and the development page.
 */
const BUNDLE_ID = 'com.example.kegelcoach';
const APP_APPLE_ID = 1_234_567_890;
const DAY_MS = 24 * 60 * 60 * 1000;
const MONTH = {
  productId: 'kegel.premium.month',
  name: '1 Month',
  days: 30,
  priceMilliunits: 9990,
};
const YEAR = { productId: 'kegel.premium.year', name: '1 Year', days: 365, priceMilliunits: 59990 };

interface Decoded {
  notification: ResponseBodyV2DecodedPayload;
  transaction?: JWSTransactionDecodedPayload;
  renewalInfo?: JWSRenewalInfoDecodedPayload;
}

describe('the App Store sandbox', () => {
  let sandbox: AppStoreSandbox;
  let receiver: Server;
  let verifier: SignedDataVerifier;
  /** The bodies POSTed to the notification URL, in order. */
  const deliveries: string[] = [];
  const onDelivery = new Set<() => void>();
  /** How the receiver answers a signedPayload: 200 unless a test fails it. */
  let answerFor: (signedPayload: string) => number = () => 200;
  /** The members the development page knows, by email. */
  const accounts = new Map<string, string>();

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks).toString('utf8');
        deliveries.push(body);
        for (const listener of onDelivery) listener();
        const { signedPayload } = JSON.parse(body) as { signedPayload: string };
        response.writeHead(answerFor(signedPayload)).end();
      })();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    sandbox = await startAppStoreSandbox({
      notificationUrl: () => `http://127.0.0.1:${port}/api/payments/apple/notifications`,
      bundleId: BUNDLE_ID,
      appAppleId: APP_APPLE_ID,
      products: [MONTH, YEAR],
      findAccountId: async (email) => accounts.get(email),
      retryBaseMs: 20,
    });
    verifier = new SignedDataVerifier(
      [sandbox.rootCertificate],
      false,
      Environment.SANDBOX,
      BUNDLE_ID,
    );
  });
  afterAll(async () => {
    await sandbox.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  /** The payloads delivered as `{"signedPayload": …}` bodies, each as many times as it came. */
  function deliveredPayloads(): string[] {
    return deliveries.map((body) => (JSON.parse(body) as { signedPayload: string }).signedPayload);
  }

  /**
   * The delivered payloads matching `predicate`, once there are `count` of them: the test's
   * timeout bounds the wait, nothing here is timed.
   */
  function delivered(predicate: (signedPayload: string) => boolean, count = 1): Promise<string[]> {
    return new Promise((resolve) => {
      const check = (): void => {
        const found = deliveredPayloads().filter(predicate);
        if (found.length < count) return;
        onDelivery.delete(check);
        resolve(found);
      };
      onDelivery.add(check);
      check();
    });
  }

  /** The notification and what it carries, each verified by Apple's verifier. */
  async function decode(signedPayload: string, by = verifier): Promise<Decoded> {
    const notification = await by.verifyAndDecodeNotification(signedPayload);
    const { signedTransactionInfo, signedRenewalInfo } = notification.data ?? {};
    return {
      notification,
      ...(signedTransactionInfo
        ? { transaction: await by.verifyAndDecodeTransaction(signedTransactionInfo) }
        : {}),
      ...(signedRenewalInfo
        ? { renewalInfo: await by.verifyAndDecodeRenewalInfo(signedRenewalInfo) }
        : {}),
    };
  }

  /** The notification delivered about this subscription last, decoded. */
  async function lastDeliveredAbout(originalTransactionId: string): Promise<Decoded> {
    for (const signedPayload of deliveredPayloads().reverse()) {
      const decoded = await decode(signedPayload).catch(() => undefined);
      if (decoded?.transaction?.originalTransactionId === originalTransactionId) return decoded;
    }
    throw new Error(`no notification about ${originalTransactionId} was delivered`);
  }

  async function refusal(promise: Promise<unknown>): Promise<VerificationException> {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!(error instanceof VerificationException))
      throw new Error(`expected a VerificationException, got ${String(error)}`);
    return error;
  }

  function jwsPart(jws: string, index: 0 | 1): Record<string, unknown> {
    return JSON.parse(
      Buffer.from(jws.split('.')[index] ?? '', 'base64url').toString('utf8'),
    ) as Record<string, unknown>;
  }

  async function subscribed(productId = MONTH.productId) {
    const appAccountToken = randomUUID();
    const result = await sandbox.subscribe({ productId, appAccountToken });
    return { ...result, appAccountToken };
  }

  it('subscribes: the signed transaction and the SUBSCRIBED notification verify, with the account token', async () => {
    const before = deliveries.length;
    const { originalTransactionId, signedTransaction, appAccountToken } = await subscribed();

    // The first attempt is answered before subscribe() resolves.
    expect(deliveries.length).toBe(before + 1);
    const body = deliveries[before] ?? '';
    expect(Object.keys(JSON.parse(body) as object)).toEqual(['signedPayload']);
    const signedPayload = (JSON.parse(body) as { signedPayload: string }).signedPayload;
    const header = jwsPart(signedPayload, 0);
    expect(header.alg).toBe('ES256');
    expect(header.x5c).toHaveLength(3);

    const { notification, transaction, renewalInfo } = await decode(signedPayload);
    expect(notification).toMatchObject({
      notificationType: 'SUBSCRIBED',
      subtype: 'INITIAL_BUY',
      notificationUUID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: '2.0',
      signedDate: expect.any(Number),
      data: { bundleId: BUNDLE_ID, bundleVersion: '1', environment: 'Sandbox', status: 1 },
    });
    // Apple sends the app's id in Production only.
    expect(notification.data?.appAppleId).toBeUndefined();
    expect(transaction).toMatchObject({
      transactionId: originalTransactionId,
      originalTransactionId,
      webOrderLineItemId: expect.stringMatching(/^\d+$/),
      bundleId: BUNDLE_ID,
      productId: MONTH.productId,
      subscriptionGroupIdentifier: 'kegel-premium',
      quantity: 1,
      type: 'Auto-Renewable Subscription',
      appAccountToken,
      inAppOwnershipType: 'PURCHASED',
      environment: 'Sandbox',
      transactionReason: 'PURCHASE',
      storefront: 'USA',
      storefrontId: '143441',
      price: 9990,
      currency: 'USD',
    });
    expect(originalTransactionId).toMatch(/^\d+$/);
    expect(transaction?.originalPurchaseDate).toBe(transaction?.purchaseDate);
    expect(transaction!.expiresDate! - transaction!.purchaseDate!).toBe(30 * DAY_MS);
    expect(transaction?.revocationDate).toBeUndefined();
    expect(renewalInfo).toMatchObject({
      originalTransactionId,
      autoRenewProductId: MONTH.productId,
      productId: MONTH.productId,
      autoRenewStatus: 1,
      environment: 'Sandbox',
      recentSubscriptionStartDate: transaction?.purchaseDate,
      renewalDate: transaction?.expiresDate,
    });
    expect(renewalInfo?.isInBillingRetryPeriod).toBeUndefined();

    // What the iOS app posts: the same purchase, verified on its own.
    const posted = await verifier.verifyAndDecodeTransaction(signedTransaction);
    expect(posted).toMatchObject({
      transactionId: originalTransactionId,
      appAccountToken,
      expiresDate: transaction?.expiresDate,
    });
  });

  it('renews into the next period with a new transaction, signed later', async () => {
    const { originalTransactionId } = await subscribed(YEAR.productId);
    const first = await lastDeliveredAbout(originalTransactionId);

    const { notification, transaction } = await decode(await sandbox.renew(originalTransactionId));
    expect(notification.notificationType).toBe('DID_RENEW');
    expect(notification.subtype).toBeUndefined();
    expect(notification.data?.status).toBe(1);
    expect(notification.signedDate).toBeGreaterThan(first.notification.signedDate!);
    expect(transaction).toMatchObject({
      originalTransactionId,
      transactionReason: 'RENEWAL',
      purchaseDate: first.transaction?.expiresDate,
      expiresDate: first.transaction!.expiresDate! + 365 * DAY_MS,
      originalPurchaseDate: first.transaction?.purchaseDate,
      price: 59990,
    });
    expect(transaction?.transactionId).not.toBe(first.transaction?.transactionId);
    expect(transaction?.webOrderLineItemId).not.toBe(first.transaction?.webOrderLineItemId);
  });

  it('turns auto-renew off and on (DID_CHANGE_RENEWAL_STATUS)', async () => {
    const { originalTransactionId } = await subscribed();
    const off = await decode(await sandbox.setAutoRenew(originalTransactionId, false));
    expect(off.notification).toMatchObject({
      notificationType: 'DID_CHANGE_RENEWAL_STATUS',
      subtype: 'AUTO_RENEW_DISABLED',
      data: { status: 1 },
    });
    expect(off.renewalInfo?.autoRenewStatus).toBe(0);
    // Turning it off again is nothing the App Store would notify.
    await expect(sandbox.setAutoRenew(originalTransactionId, false)).rejects.toThrow(
      /Cannot turn auto-renew off/,
    );
    const on = await decode(await sandbox.setAutoRenew(originalTransactionId, true));
    expect(on.notification.subtype).toBe('AUTO_RENEW_ENABLED');
    expect(on.renewalInfo?.autoRenewStatus).toBe(1);
  });

  it('fails to renew into a grace period, ends it, then expires in billing retry', async () => {
    const { originalTransactionId } = await subscribed();

    const failed = await decode(await sandbox.failToRenew(originalTransactionId, true));
    expect(failed.notification).toMatchObject({
      notificationType: 'DID_FAIL_TO_RENEW',
      subtype: 'GRACE_PERIOD',
      data: { status: 4 },
    });
    // The period ended at the failed renewal; the grace period runs 6 days past it.
    expect(failed.transaction!.expiresDate).toBeLessThanOrEqual(failed.notification.signedDate!);
    expect(failed.renewalInfo).toMatchObject({
      isInBillingRetryPeriod: true,
      gracePeriodExpiresDate: failed.transaction!.expiresDate! + 6 * DAY_MS,
      autoRenewStatus: 1,
    });

    const graceOver = await decode(await sandbox.expireGracePeriod(originalTransactionId));
    expect(graceOver.notification).toMatchObject({
      notificationType: 'GRACE_PERIOD_EXPIRED',
      data: { status: 3 },
    });
    expect(graceOver.notification.subtype).toBeUndefined();
    expect(graceOver.renewalInfo?.isInBillingRetryPeriod).toBe(true);
    expect(graceOver.renewalInfo!.gracePeriodExpiresDate).toBeLessThanOrEqual(
      graceOver.notification.signedDate!,
    );

    const expired = await decode(await sandbox.expire(originalTransactionId));
    expect(expired.notification).toMatchObject({
      notificationType: 'EXPIRED',
      subtype: 'BILLING_RETRY',
      data: { status: 2 },
    });
    expect(expired.renewalInfo).toMatchObject({ expirationIntent: 2, autoRenewStatus: 0 });
    expect(expired.transaction?.transactionId).toBe(originalTransactionId);
    await expect(sandbox.renew(originalTransactionId)).rejects.toThrow(/Cannot renew/);
  });

  it('fails to renew without grace, then recovers with a renewal (BILLING_RECOVERY)', async () => {
    const { originalTransactionId } = await subscribed();
    const failed = await decode(await sandbox.failToRenew(originalTransactionId, false));
    expect(failed.notification).toMatchObject({
      notificationType: 'DID_FAIL_TO_RENEW',
      data: { status: 3 },
    });
    expect(failed.notification.subtype).toBeUndefined();
    expect(failed.renewalInfo?.isInBillingRetryPeriod).toBe(true);
    expect(failed.renewalInfo?.gracePeriodExpiresDate).toBeUndefined();
    await expect(sandbox.expireGracePeriod(originalTransactionId)).rejects.toThrow(
      /Cannot end the grace period/,
    );

    const recovered = await decode(await sandbox.renew(originalTransactionId));
    expect(recovered.notification).toMatchObject({
      notificationType: 'DID_RENEW',
      subtype: 'BILLING_RECOVERY',
      data: { status: 1 },
    });
    expect(recovered.transaction?.transactionId).not.toBe(originalTransactionId);
    expect(recovered.transaction!.purchaseDate).toBeGreaterThanOrEqual(
      failed.transaction!.expiresDate!,
    );
    expect(recovered.renewalInfo?.isInBillingRetryPeriod).toBeUndefined();
  });

  it('expires voluntarily once auto-renew is off', async () => {
    const { originalTransactionId } = await subscribed();
    await sandbox.setAutoRenew(originalTransactionId, false);
    // Nothing is renewed with auto-renew off, so nothing fails to renew.
    await expect(sandbox.failToRenew(originalTransactionId, true)).rejects.toThrow(
      /Cannot fail to renew/,
    );
    const expired = await decode(await sandbox.expire(originalTransactionId));
    expect(expired.notification).toMatchObject({
      notificationType: 'EXPIRED',
      subtype: 'VOLUNTARY',
      data: { status: 2 },
    });
    expect(expired.renewalInfo).toMatchObject({ expirationIntent: 1, autoRenewStatus: 0 });
    expect(expired.transaction!.expiresDate).toBeLessThanOrEqual(expired.notification.signedDate!);
  });

  it('refunds the latest transaction, and reverses the refund', async () => {
    const { originalTransactionId } = await subscribed();
    const renewal = await decode(await sandbox.renew(originalTransactionId));

    const refunded = await decode(await sandbox.refund(originalTransactionId));
    expect(refunded.notification).toMatchObject({
      notificationType: 'REFUND',
      data: { status: 5 },
    });
    expect(refunded.transaction).toMatchObject({
      transactionId: renewal.transaction?.transactionId,
      revocationDate: expect.any(Number),
      revocationReason: 0,
      inAppOwnershipType: 'PURCHASED',
    });
    expect(refunded.transaction!.revocationDate).toBeLessThanOrEqual(
      refunded.notification.signedDate!,
    );
    await expect(sandbox.refund(originalTransactionId)).rejects.toThrow(/Cannot refund/);

    const reversed = await decode(await sandbox.reverseRefund(originalTransactionId));
    expect(reversed.notification).toMatchObject({
      notificationType: 'REFUND_REVERSED',
      data: { status: 1 },
    });
    expect(reversed.transaction?.transactionId).toBe(renewal.transaction?.transactionId);
    expect(reversed.transaction?.revocationDate).toBeUndefined();
    expect(reversed.transaction?.revocationReason).toBeUndefined();
  });

  it('revokes a Family Sharing entitlement (REVOKE)', async () => {
    const { originalTransactionId } = await subscribed();
    const revoked = await decode(await sandbox.revoke(originalTransactionId));
    expect(revoked.notification).toMatchObject({
      notificationType: 'REVOKE',
      data: { status: 5 },
    });
    expect(revoked.transaction).toMatchObject({
      inAppOwnershipType: 'FAMILY_SHARED',
      revocationDate: expect.any(Number),
    });
    await expect(sandbox.reverseRefund(originalTransactionId)).rejects.toThrow(
      /Cannot reverse a refund/,
    );
    await expect(sandbox.renew('1')).rejects.toThrow(/No subscription/);
  });

  it('sends a TEST notification without a transaction', async () => {
    const { notification, transaction } = await decode(await sandbox.test());
    expect(notification).toMatchObject({
      notificationType: 'TEST',
      data: { bundleId: BUNDLE_ID, environment: 'Sandbox' },
    });
    expect(notification.subtype).toBeUndefined();
    expect(transaction).toBeUndefined();
    expect(notification.data?.status).toBeUndefined();
  });

  it('hands back without delivering when asked, so a test can deliver it again, in any order', async () => {
    const { originalTransactionId } = await subscribed();
    const before = deliveries.length;
    const first = await sandbox.setAutoRenew(originalTransactionId, false, { deliver: false });
    const second = await sandbox.setAutoRenew(originalTransactionId, true, { deliver: false });
    // Each action resolves only once its first delivery is answered: none was made.
    expect(deliveries.length).toBe(before);
    const [early, late] = await Promise.all([decode(first), decode(second)]);
    expect(late.notification.signedDate).toBeGreaterThan(early.notification.signedDate!);
    expect(early.notification.notificationUUID).not.toBe(late.notification.notificationUUID);
  });

  it('signs with a look-alike chain that the verifier refuses, and refuses a tampered payload', async () => {
    const { originalTransactionId } = await subscribed();
    const untrusted = await sandbox.refund(originalTransactionId, {
      deliver: false,
      untrusted: true,
    });
    // Same names as the trusted chain, other keys: only the signatures tell them apart.
    expect(jwsPart(untrusted, 0).x5c).not.toEqual(
      jwsPart(await sandbox.test({ deliver: false }), 0).x5c,
    );
    expect((await refusal(verifier.verifyAndDecodeNotification(untrusted))).status).toBe(
      VerificationStatus.VERIFICATION_FAILURE,
    );
    const inner = jwsPart(untrusted, 1) as { data: { signedTransactionInfo: string } };
    expect(
      (await refusal(verifier.verifyAndDecodeTransaction(inner.data.signedTransactionInfo))).status,
    ).toBe(VerificationStatus.VERIFICATION_FAILURE);

    // sign() of any payload: trusted verifies, untrusted does not.
    const payload = {
      transactionId: '42',
      originalTransactionId: '42',
      bundleId: BUNDLE_ID,
      environment: 'Sandbox',
      signedDate: Date.now(),
    };
    await expect(verifier.verifyAndDecodeTransaction(sandbox.sign(payload))).resolves.toMatchObject(
      {
        transactionId: '42',
      },
    );
    await refusal(verifier.verifyAndDecodeTransaction(sandbox.sign(payload, { untrusted: true })));

    // A trusted header and signature over another payload.
    const [header, , signature] = sandbox.sign(payload).split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, transactionId: '43' })).toString(
      'base64url',
    );
    expect(
      (await refusal(verifier.verifyAndDecodeTransaction(`${header}.${forged}.${signature}`)))
        .status,
    ).toBe(VerificationStatus.VERIFICATION_FAILURE);
  });

  it('signs Production notifications with the app id, which a Production verifier checks', async () => {
    const before = deliveries.length;
    const { originalTransactionId } = await sandbox.subscribe({
      productId: MONTH.productId,
      environment: 'Production',
    });
    const signedPayload = deliveredPayloads()[before] ?? '';
    const production = (appAppleId: number) =>
      new SignedDataVerifier(
        [sandbox.rootCertificate],
        false,
        Environment.PRODUCTION,
        BUNDLE_ID,
        appAppleId,
      );

    const { notification, transaction } = await decode(signedPayload, production(APP_APPLE_ID));
    expect(notification.data).toMatchObject({
      appAppleId: APP_APPLE_ID,
      environment: 'Production',
    });
    expect(transaction).toMatchObject({ originalTransactionId, environment: 'Production' });
    expect(
      (await refusal(production(APP_APPLE_ID + 1).verifyAndDecodeNotification(signedPayload)))
        .status,
    ).toBe(VerificationStatus.INVALID_APP_IDENTIFIER);
    expect((await refusal(verifier.verifyAndDecodeNotification(signedPayload))).status).toBe(
      VerificationStatus.INVALID_ENVIRONMENT,
    );
  });

  it('retries a delivery answered 500, with the same signed payload', async () => {
    const failedOnce = new Set<string>();
    answerFor = (signedPayload) => {
      if (failedOnce.has(signedPayload)) return 200;
      failedOnce.add(signedPayload);
      return 500;
    };
    try {
      const { originalTransactionId } = await subscribed();
      const signedPayload = await sandbox.renew(originalTransactionId);
      const attempts = await delivered((delivery) => delivery === signedPayload, 2);
      expect(attempts).toEqual([signedPayload, signedPayload]);
      expect((await decode(signedPayload)).notification.notificationType).toBe('DID_RENEW');
    } finally {
      answerFor = () => 200;
    }
  });

  describe('the development page', () => {
    function post(path: string, fields: Record<string, string> = {}): Promise<Response> {
      return fetch(new URL(path, sandbox.baseUrl), {
        method: 'POST',
        body: new URLSearchParams(fields),
        redirect: 'manual',
      });
    }

    async function devPage(): Promise<string> {
      const response = await fetch(sandbox.devUrl);
      expect(response.status).toBe(200);
      return response.text();
    }

    /** What a browser sends when the button named `label` on /dev is pressed: its form, as is. */
    async function pressDevButton(label: string): Promise<Response> {
      const form = (await devPage())
        .split('<form ')
        .slice(1)
        .map((chunk) => chunk.slice(0, chunk.indexOf('</form>')))
        .find((chunk) => chunk.includes(`aria-label="${label}"`));
      if (!form) throw new Error(`no button "${label}" on /dev`);
      const action = /^method="post" action="([^"]+)"/.exec(form)?.[1] ?? '';
      return post(action);
    }

    it('subscribes a member, lists the subscription, and refunds it from its button', async () => {
      const email = `member-${randomUUID().slice(0, 8)}@example.com`;
      const accountId = randomUUID();
      accounts.set(email, accountId);

      const empty = await devPage();
      expect(empty).toContain('<title>App Store sandbox — subscriptions</title>');
      expect(empty).toContain('TEST MODE');
      expect(empty).toContain(
        `<option value="${MONTH.productId}">1 Month — 30 days, $9.99</option>`,
      );

      const before = deliveries.length;
      const subscribe = await post('/dev/subscribe', {
        email,
        productId: MONTH.productId,
        environment: 'Sandbox',
      });
      expect(subscribe.status).toBe(303);
      expect(subscribe.headers.get('location')).toBe('/dev');
      const { notification, transaction } = await decode(deliveredPayloads()[before] ?? '');
      expect(notification.notificationType).toBe('SUBSCRIBED');
      expect(transaction?.appAccountToken).toBe(accountId);
      const originalTransactionId = transaction?.originalTransactionId ?? '';

      const listed = await devPage();
      const row = /<tbody>(<tr[^]*?<\/tr>)/.exec(listed)?.[1] ?? '';
      expect(row).toContain(`data-original-transaction-id="${originalTransactionId}"`);
      expect(row).toContain(`<td>${email}</td>`);
      expect(row).toContain('Active, auto-renews');
      expect(row).toContain(`aria-label="Refund 1 Month subscription of ${email}"`);
      expect(row).toContain(`aria-label="Renew 1 Month subscription of ${email}"`);
      expect(row).not.toContain('Reverse refund');
      expect(row).not.toContain('End grace period');

      const refund = await pressDevButton(`Refund 1 Month subscription of ${email}`);
      expect(refund.status).toBe(303);
      const refunded = await lastDeliveredAbout(originalTransactionId);
      expect(refunded.notification.notificationType).toBe('REFUND');
      expect(refunded.transaction?.revocationDate).toEqual(expect.any(Number));

      const after = await devPage();
      expect(after).toContain(`aria-label="Reverse refund 1 Month subscription of ${email}"`);
      expect(after).not.toContain(`aria-label="Refund 1 Month subscription of ${email}"`);
      // The state forbids it now: a stale page's button is refused.
      const again = await post(`/dev/subscriptions/${originalTransactionId}/refund`);
      expect(again.status).toBe(409);
      expect(await again.text()).toContain('Cannot refund');
    });

    it('subscribes in Production when chosen', async () => {
      const email = `prod-${randomUUID().slice(0, 8)}@example.com`;
      accounts.set(email, randomUUID());
      const before = deliveries.length;
      expect(
        (
          await post('/dev/subscribe', {
            email,
            productId: YEAR.productId,
            environment: 'Production',
          })
        ).status,
      ).toBe(303);
      const notification = await verifier
        .verifyAndDecodeNotification(deliveredPayloads()[before] ?? '')
        .catch((error: unknown) => error);
      expect((notification as VerificationException).status).toBe(
        VerificationStatus.INVALID_ENVIRONMENT,
      );
      const row = (await devPage()).split('<tr').find((chunk) => chunk.includes(email)) ?? '';
      expect(row).toContain('<td>Production</td>');
      expect(row).toContain(`aria-label="Refund 1 Year subscription of ${email}"`);
    });

    it('subscribes without an appAccountToken when bought signed out of the app, listing its order id', async () => {
      const email = `signed-out-${randomUUID().slice(0, 8)}@example.com`;
      accounts.set(email, randomUUID());
      expect(await devPage()).toContain('name="signedOut"');
      const before = deliveries.length;
      const subscribe = await post('/dev/subscribe', {
        email,
        productId: MONTH.productId,
        environment: 'Sandbox',
        signedOut: 'on',
      });
      expect(subscribe.status).toBe(303);
      const { transaction } = await decode(deliveredPayloads()[before] ?? '');
      expect(transaction?.appAccountToken).toBeUndefined();
      const orderId = sandbox.orderIdsOf(transaction?.originalTransactionId ?? '')[0] ?? '';
      const row = (await devPage()).split('<tr').find((chunk) => chunk.includes(email)) ?? '';
      expect(row).toContain(`<td>${orderId}</td>`);
    });

    it('answers an unknown member, subscription or page with 404', async () => {
      const unknown = await post('/dev/subscribe', {
        email: 'nobody@example.com',
        productId: MONTH.productId,
      });
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).toContain('No member with the email nobody@example.com');
      expect((await post('/dev/subscriptions/1/refund')).status).toBe(404);
      expect((await post('/dev/subscriptions/1/dance')).status).toBe(404);
      expect((await fetch(`${sandbox.baseUrl}/dev/nothing`)).status).toBe(404);
    });
  });
});
