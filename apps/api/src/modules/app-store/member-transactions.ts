// What one verified App Store transaction does to a member: its purchase recorded (the premium
// module keeps it), its period, grace period and refund on the ledger, and the notifications kept
// for its subscription applied once it is bound to him.
import type {
  JWSRenewalInfoDecodedPayload,
  JWSTransactionDecodedPayload,
} from '@apple/app-store-server-library';
import { minorUnitsFromMilliunits } from '@kegel/contract';
import type { Transaction } from 'kysely';

import { isUuid } from '../../db/ids';
import type { Database } from '../../db/schema';
import type { AppStoreEnvironment } from '../../security/app-store-verifier';
import { ledger, purchasesRepo } from '../premium';
import { usersRepo } from '../users';
import * as repo from './repo';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A verified notification, as kept until applied. */
export interface Notice {
  notificationUuid: string;
  type: string;
  subtype: string | null;
  signedAt: number;
  environment: AppStoreEnvironment;
  transaction: JWSTransactionDecodedPayload | undefined;
  renewal: JWSRenewalInfoDecodedPayload | undefined;
}

/** The account a token names, if it is an account's id. */
export async function accountNamedBy(
  transaction: Transaction<Database>,
  token: string | undefined,
): Promise<string | undefined> {
  if (!token || !isUuid(token)) return undefined;
  return (await usersRepo.findUserById(transaction, token.toLowerCase()))?.id;
}

/** Remembers the latest signed word on the subscription (status, renewal, grace). */
export async function saveState(
  transaction: Transaction<Database>,
  notice: Pick<Notice, 'environment' | 'transaction' | 'renewal' | 'signedAt'> & {
    status?: number;
  },
): Promise<void> {
  const { transaction: payment, renewal } = notice;
  if (!payment?.originalTransactionId) return;
  await repo.saveSubscriptionState(transaction, {
    originalTransactionId: payment.originalTransactionId,
    environment: notice.environment,
    productId: payment.productId ?? renewal?.productId ?? 'unknown',
    autoRenew: renewal?.autoRenewStatus === undefined ? null : renewal.autoRenewStatus === 1,
    status: notice.status ?? null,
    gracePeriodExpiresAt: renewal?.gracePeriodExpiresDate
      ? new Date(renewal.gracePeriodExpiresDate)
      : null,
    signedAt: new Date(notice.signedAt),
  });
}

/** What one transaction (and, with a notification, its renewal info) does to the member. */
export async function applyToMember(
  transaction: Transaction<Database>,
  userId: string,
  notice: Pick<Notice, 'type' | 'signedAt' | 'environment' | 'transaction' | 'renewal'>,
): Promise<void> {
  const payment = notice.transaction;
  if (!payment?.transactionId || !payment.productId) return;
  const startsAt = new Date(payment.purchaseDate ?? notice.signedAt);
  const expiresAt = payment.expiresDate ? new Date(payment.expiresDate) : undefined;
  const purchase = await findOrRecordPurchase(
    transaction,
    userId,
    notice,
    { ...payment, transactionId: payment.transactionId, productId: payment.productId },
    { startsAt, expiresAt },
  );
  if (!purchase) return;
  let buyer = purchase.userId;
  if (buyer === null) {
    // Its buyer deleted his account, and the subscription, still paid for on his Apple ID, is
    // now proven by this member: the transaction is his again.
    await purchasesRepo.adoptPurchase(transaction, purchase.id, userId);
    buyer = userId;
  }
  if (expiresAt) {
    await ledger.recordAppStorePeriod(transaction, {
      userId: buyer,
      purchaseId: purchase.id,
      startsAt,
      endsAt: expiresAt,
      reason: notice.type === 'DID_RENEW' ? 'App Store renewal' : 'App Store purchase',
    });
  }
  // A billing problem with a grace period: premium lasts while Apple retries.
  const graceEndsAt = notice.renewal?.gracePeriodExpiresDate;
  if (
    notice.type === 'DID_FAIL_TO_RENEW' &&
    graceEndsAt &&
    expiresAt &&
    graceEndsAt > expiresAt.getTime()
  ) {
    await ledger.recordAppStorePeriod(transaction, {
      userId: buyer,
      purchaseId: purchase.id,
      startsAt,
      endsAt: new Date(graceEndsAt),
      reason: 'App Store billing grace period',
    });
  }
  // The latest signed word on the transaction wins (ledger.ts compares their times): a
  // renewal signed before a refund but delivered after it does not bring premium back.
  const signedAt = new Date(notice.signedAt);
  if (payment.revocationDate || notice.type === 'REFUND_REVERSED') {
    await ledger.recordAppStoreWord(transaction, {
      userId: buyer,
      purchaseId: purchase.id,
      counts: !payment.revocationDate,
      reason: payment.revocationDate
        ? notice.type === 'REVOKE'
          ? 'App Store revoke'
          : 'App Store refund'
        : 'App Store refund reversed',
      signedAt,
    });
  }
}

/** Applies the notifications kept for a subscription now bound to `userId`. */
export async function applyPending(
  transaction: Transaction<Database>,
  subscription: repo.SubscriptionKey,
  userId: string,
): Promise<void> {
  for (const pending of await repo.listPendingNotifications(transaction, subscription)) {
    if (!pending.payload) continue;
    await applyToMember(transaction, userId, JSON.parse(pending.payload) as Notice);
    await repo.markNotificationApplied(transaction, pending.notificationUuid);
  }
}

/** The purchase of one App Store transaction: recorded for the member when it is new. */
async function findOrRecordPurchase(
  transaction: Transaction<Database>,
  userId: string,
  notice: Pick<Notice, 'environment'>,
  payment: { transactionId: string; productId: string; price?: number; currency?: string },
  period: { startsAt: Date; expiresAt: Date | undefined },
): Promise<{ id: string; userId: string | null } | undefined> {
  const { startsAt, expiresAt } = period;
  const known = await purchasesRepo.findApplePurchase(
    transaction,
    notice.environment,
    payment.transactionId,
  );
  if (known) return known;
  const plan = await repo.findPlanByProduct(transaction, payment.productId);
  const days =
    plan?.days ??
    Math.max(
      1,
      Math.round(((expiresAt?.getTime() ?? startsAt.getTime()) - startsAt.getTime()) / DAY_MS),
    );
  const purchaseId = await purchasesRepo.insertPurchase(transaction, {
    userId,
    planId: plan?.id ?? null,
    planName: plan?.name ?? payment.productId,
    provider: 'Apple',
    providerPaymentId: payment.transactionId,
    // Apple's price is in milliunits of any currency; stored in its minor units like Stripe's.
    amountCents: minorUnitsFromMilliunits(payment.price ?? 0, payment.currency ?? 'usd'),
    currency: (payment.currency ?? 'usd').toLowerCase(),
    listedPriceCents: plan?.priceCents ?? null,
    listedCurrency: plan?.currency ?? null,
    days,
    startsAt,
    expiresAt: expiresAt ?? startsAt,
    environment: notice.environment,
  });
  if (purchaseId) return { id: purchaseId, userId };
  return purchasesRepo.findApplePurchase(transaction, notice.environment, payment.transactionId);
}
