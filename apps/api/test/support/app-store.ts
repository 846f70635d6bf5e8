// App Store payloads as Apple signs them, made with the App Store sandbox's certificate chain
// (sandbox.sign), for tests that deliver notifications and transactions themselves: several
// times, out of order, or tampered with.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { type AppStoreSandbox, startAppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import type { FastifyInstance } from 'fastify';

export const TEST_BUNDLE_ID = 'app.kegelcoach.ios';
export const TEST_APP_APPLE_ID = 1_234_567_890;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The server's App Store settings, trusting the sandbox's root (written to a file, as deployed). */
export function appStoreEnv(
  sandbox: AppStoreSandbox,
  extra: Record<string, string> = {},
): Record<string, string> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'apple-root-')), 'root.der');
  writeFileSync(file, sandbox.rootCertificate);
  return {
    APPLE_BUNDLE_ID: TEST_BUNDLE_ID,
    APPLE_APP_APPLE_ID: String(TEST_APP_APPLE_ID),
    APPLE_ROOT_CERTIFICATES: file,
    ...extra,
  };
}

export interface TransactionFacts {
  originalTransactionId: string;
  transactionId?: string;
  productId?: string;
  purchaseDate: number;
  expiresDate: number;
  appAccountToken?: string;
  revocationDate?: number;
  environment?: 'Sandbox' | 'Production';
  signedDate?: number;
  bundleId?: string;
  /** Apple's price in milliunits of `currency` (1000 is one unit of any currency). */
  price?: number;
  currency?: string;
}

export function transactionPayload(facts: TransactionFacts): Record<string, unknown> {
  return {
    transactionId: facts.transactionId ?? facts.originalTransactionId,
    originalTransactionId: facts.originalTransactionId,
    webOrderLineItemId: String(Date.now()),
    bundleId: facts.bundleId ?? TEST_BUNDLE_ID,
    productId: facts.productId ?? 'premium.month',
    subscriptionGroupIdentifier: 'kegel-premium',
    purchaseDate: facts.purchaseDate,
    originalPurchaseDate: facts.purchaseDate,
    expiresDate: facts.expiresDate,
    quantity: 1,
    type: 'Auto-Renewable Subscription',
    ...(facts.appAccountToken ? { appAccountToken: facts.appAccountToken } : {}),
    inAppOwnershipType: 'PURCHASED',
    signedDate: facts.signedDate ?? Date.now(),
    environment: facts.environment ?? 'Sandbox',
    transactionReason: facts.transactionId ? 'RENEWAL' : 'PURCHASE',
    storefront: 'USA',
    storefrontId: '143441',
    price: facts.price ?? 29990,
    currency: facts.currency ?? 'USD',
    ...(facts.revocationDate ? { revocationDate: facts.revocationDate, revocationReason: 0 } : {}),
  };
}

export interface NotificationFacts {
  type: string;
  subtype?: string;
  transaction?: TransactionFacts;
  gracePeriodExpiresDate?: number;
  autoRenew?: boolean;
  status?: number;
  signedDate?: number;
  environment?: 'Sandbox' | 'Production';
  appAppleId?: number;
  bundleId?: string;
  notificationUuid?: string;
  untrusted?: boolean;
}

/** A signed App Store Server Notification V2 (the `signedPayload`). */
export function signedNotification(sandbox: AppStoreSandbox, facts: NotificationFacts): string {
  const signedDate = facts.signedDate ?? Date.now();
  const environment = facts.environment ?? facts.transaction?.environment ?? 'Sandbox';
  const options = { untrusted: facts.untrusted ?? false };
  const transaction = facts.transaction
    ? sandbox.sign(
        transactionPayload({
          signedDate,
          environment,
          bundleId: facts.bundleId,
          ...facts.transaction,
        }),
        options,
      )
    : undefined;
  const renewal = facts.transaction
    ? sandbox.sign(
        {
          originalTransactionId: facts.transaction.originalTransactionId,
          autoRenewProductId: facts.transaction.productId ?? 'premium.month',
          productId: facts.transaction.productId ?? 'premium.month',
          autoRenewStatus: facts.autoRenew === false ? 0 : 1,
          signedDate,
          environment,
          recentSubscriptionStartDate: facts.transaction.purchaseDate,
          renewalDate: facts.transaction.expiresDate,
          ...(facts.gracePeriodExpiresDate
            ? { gracePeriodExpiresDate: facts.gracePeriodExpiresDate, isInBillingRetryPeriod: true }
            : {}),
        },
        options,
      )
    : undefined;
  return sandbox.sign(
    {
      notificationType: facts.type,
      ...(facts.subtype ? { subtype: facts.subtype } : {}),
      notificationUUID: facts.notificationUuid ?? randomUUID(),
      data: {
        ...(environment === 'Production' || facts.appAppleId
          ? { appAppleId: facts.appAppleId ?? TEST_APP_APPLE_ID }
          : {}),
        bundleId: facts.bundleId ?? TEST_BUNDLE_ID,
        bundleVersion: '1',
        environment,
        ...(transaction ? { signedTransactionInfo: transaction, signedRenewalInfo: renewal } : {}),
        ...(facts.status ? { status: facts.status } : {}),
      },
      version: '2.0',
      signedDate,
    },
    options,
  );
}

/** A month's transaction from now (or from `purchaseDate`). */
export function monthFrom(
  purchaseDate: number,
  facts: Partial<TransactionFacts> = {},
): TransactionFacts {
  return {
    originalTransactionId: facts.originalTransactionId ?? String(Math.floor(Math.random() * 1e15)),
    purchaseDate,
    expiresDate: purchaseDate + 30 * DAY_MS,
    ...facts,
  };
}

export function deliverNotification(app: FastifyInstance, signedPayload: string) {
  return app.inject({
    method: 'POST',
    url: '/api/payments/apple/notifications',
    payload: { signedPayload },
  });
}

export function postTransaction(
  app: FastifyInstance,
  accessToken: string,
  signedTransaction: string,
) {
  return app.inject({
    method: 'POST',
    url: '/api/payments/apple/transactions',
    headers: { authorization: `Bearer ${accessToken}` },
    payload: { signedTransaction },
  });
}

/** The claims of a JWS, read without verifying it (the test made it). */
export function claimsOf(jws: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

/** The signed transaction a notification carries, as the iOS app would also hold it. */
export function transactionInside(signedPayload: string): string {
  const data = claimsOf(signedPayload).data as { signedTransactionInfo?: string } | undefined;
  if (!data?.signedTransactionInfo) throw new Error('the notification carries no transaction');
  return data.signedTransactionInfo;
}

/**
 * The App Store sandbox the tests sign with: our bundle id, the monthly plan, and no delivery
 * of its own (the tests post each payload themselves).
 */
export function startTestAppStoreSandbox(
  options: Partial<Parameters<typeof startAppStoreSandbox>[0]> = {},
): Promise<AppStoreSandbox> {
  return startAppStoreSandbox({
    bundleId: TEST_BUNDLE_ID,
    notificationUrl: 'http://127.0.0.1:1/unused',
    products: [{ productId: 'premium.month', name: '1 Month', days: 30, priceMilliunits: 29990 }],
    ...options,
  });
}
