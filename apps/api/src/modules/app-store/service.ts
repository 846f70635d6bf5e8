// The rules of App Store purchases: what each verified notification or posted transaction does
// to a member's premium. Each App Store transaction (one period of a subscription) is a purchase
// of provider 'Apple' whose period is a ledger row; a refund or revocation takes that
// transaction's period out, a refund reversed puts it back; a billing grace period extends the
// latest period. A subscription is bound to an account by the appAccountToken the iOS app sets
// (the account id), or by the signed-in member who posts its first transaction; notifications
// for a subscription bound to no account yet are kept and applied when the binding arrives.
// Sandbox and Production number their transactions apart: a purchase or subscription is its id
// in the environment its payload was verified for, never the same id in the other.
import type {
  JWSRenewalInfoDecodedPayload,
  JWSTransactionDecodedPayload,
} from '@apple/app-store-server-library';
import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { isUuid } from '../../db/ids';
import { AppError } from '../../errors';
import {
  type AppStoreEnvironment,
  AppStorePayloadRefused,
  type AppStoreVerifier,
} from '../../security/app-store-verifier';
import { usersRepo } from '../users';
import { ledger, purchasesRepo } from '../premium';
import * as repo from './repo';

const DAY_MS = 24 * 60 * 60 * 1000;

export const appStoreMessages = {
  notVerified: 'The App Store payload could not be verified',
  boundElsewhere: 'This App Store purchase belongs to another account',
  off: 'App Store purchases are not enabled on this server',
};

/** A verified notification, as kept until applied. */
interface Notice {
  notificationUuid: string;
  type: string;
  subtype: string | null;
  signedAt: number;
  environment: AppStoreEnvironment;
  transaction: JWSTransactionDecodedPayload | undefined;
  renewal: JWSRenewalInfoDecodedPayload | undefined;
}

export interface AppStoreServiceDependencies {
  db: Kysely<Database>;
  /** Null when App Store support is off: every call answers 404. */
  verifier: AppStoreVerifier | null;
}

export type AppStoreService = ReturnType<typeof createAppStoreService>;

export function createAppStoreService(deps: AppStoreServiceDependencies) {
  const { db } = deps;

  function verifierOrOff(): AppStoreVerifier {
    if (!deps.verifier) throw new AppError(404, appStoreMessages.off);
    return deps.verifier;
  }

  async function refusedAs400<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppStorePayloadRefused)
        throw new AppError(400, `${appStoreMessages.notVerified}: ${error.message}`);
      throw error;
    }
  }

  /** The account a token names, if it is an account's id. */
  async function accountNamedBy(
    transaction: Transaction<Database>,
    token: string | undefined,
  ): Promise<string | undefined> {
    if (!token || !isUuid(token)) return undefined;
    return (await usersRepo.findUserById(transaction, token.toLowerCase()))?.id;
  }

  /** Remembers the latest signed word on the subscription (status, renewal, grace). */
  async function saveState(
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
  async function applyToMember(
    transaction: Transaction<Database>,
    userId: string,
    notice: Pick<Notice, 'type' | 'signedAt' | 'environment' | 'transaction' | 'renewal'>,
  ): Promise<void> {
    const payment = notice.transaction;
    if (!payment?.transactionId || !payment.productId) return;
    const startsAt = new Date(payment.purchaseDate ?? notice.signedAt);
    const expiresAt = payment.expiresDate ? new Date(payment.expiresDate) : undefined;
    let purchase = await purchasesRepo.findApplePurchase(
      transaction,
      notice.environment,
      payment.transactionId,
    );
    if (!purchase) {
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
        // Apple's price is in milliunits of the currency.
        amountCents: Math.round((payment.price ?? 0) / 10),
        currency: (payment.currency ?? 'usd').toLowerCase(),
        listedPriceCents: plan?.priceCents ?? null,
        listedCurrency: plan?.currency ?? null,
        days,
        startsAt,
        expiresAt: expiresAt ?? startsAt,
        environment: notice.environment,
      });
      purchase = purchaseId
        ? { id: purchaseId, userId }
        : await purchasesRepo.findApplePurchase(
            transaction,
            notice.environment,
            payment.transactionId,
          );
      if (!purchase) return;
    }
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
  async function applyPending(
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

  return {
    /** An App Store Server Notification V2; resolves once its change is committed. */
    async receiveNotification(signedPayload: string): Promise<'applied' | 'duplicate' | 'kept'> {
      const verified = await refusedAs400(() => verifierOrOff().verifyNotification(signedPayload));
      const { notification, transaction: payment } = verified;
      const notice: Notice = {
        notificationUuid: notification.notificationUUID ?? '',
        type: String(notification.notificationType ?? ''),
        subtype: notification.subtype ? String(notification.subtype) : null,
        signedAt: notification.signedDate ?? Date.now(),
        environment: verified.environment,
        transaction: payment,
        renewal: verified.renewal,
      };
      if (!notice.notificationUuid)
        throw new AppError(400, `${appStoreMessages.notVerified}: no notificationUUID`);
      const originalTransactionId = payment?.originalTransactionId ?? null;
      // The subscription in the environment the notification is verified for: the same id in
      // the other one is another subscription.
      const key = originalTransactionId
        ? { environment: notice.environment, originalTransactionId }
        : undefined;
      return db.transaction().execute(async (transaction) => {
        if (key) await repo.lockSubscription(transaction, key);
        const isNew = await repo.recordNotification(transaction, {
          notificationUuid: notice.notificationUuid,
          notificationType: notice.type,
          subtype: notice.subtype,
          environment: notice.environment,
          originalTransactionId,
          signedAt: new Date(notice.signedAt),
          payload: JSON.stringify(notice),
        });
        if (!isNew) return 'duplicate';
        if (!key) {
          // TEST, or a summary: nothing to apply.
          await repo.markNotificationApplied(transaction, notice.notificationUuid);
          return 'applied';
        }
        await saveState(transaction, {
          ...notice,
          status: notification.data?.status,
        });
        // The account the transaction's token names wins (a resubscription on a shared Apple ID
        // by another member carries his token); else the account the subscription is bound to.
        const subscription = await repo.findSubscription(transaction, key);
        const owner =
          (await accountNamedBy(transaction, payment?.appAccountToken)) ??
          subscription?.userId ??
          undefined;
        // Bound to nobody yet: kept until the iOS app posts the transaction of a signed-in member.
        if (!owner) return 'kept';
        // The member's row before the rows that reference it (the binding, a purchase): two
        // changes of one member then queue instead of deadlocking.
        await usersRepo.lockUser(transaction, owner);
        if (subscription?.userId !== owner) await repo.bindSubscription(transaction, key, owner);
        await applyPending(transaction, key, owner);
        return 'applied';
      });
    },

    /** What the iOS app posts after a purchase or restore: the member's premium end after it. */
    async recordTransaction(userId: string, signedTransaction: string): Promise<Date | null> {
      const { transaction: payment, environment } = await refusedAs400(() =>
        verifierOrOff().verifyTransaction(signedTransaction),
      );
      const originalTransactionId = payment.originalTransactionId;
      if (!originalTransactionId)
        throw new AppError(400, `${appStoreMessages.notVerified}: no originalTransactionId`);
      const key = { environment, originalTransactionId };
      return db.transaction().execute(async (transaction) => {
        await repo.lockSubscription(transaction, key);
        await usersRepo.lockUser(transaction, userId);
        // A token naming another account refuses; one naming no account (a deleted one: the
        // token outlives it on Apple's side) counts as no token.
        const tokenOwner = await accountNamedBy(transaction, payment.appAccountToken);
        if (tokenOwner && tokenOwner !== userId) {
          throw new AppError(403, appStoreMessages.boundElsewhere);
        }
        const subscription = await repo.findSubscription(transaction, key);
        // Without a token, the first binding holds; a token naming this member is proof enough.
        if (subscription?.userId && subscription.userId !== userId && tokenOwner !== userId) {
          throw new AppError(403, appStoreMessages.boundElsewhere);
        }
        const notice = {
          type: 'TRANSACTION',
          signedAt: payment.signedDate ?? Date.now(),
          environment,
          transaction: payment,
          renewal: undefined,
        };
        await saveState(transaction, notice);
        await repo.bindSubscription(transaction, key, userId);
        await applyToMember(transaction, userId, notice);
        await applyPending(transaction, key, userId);
        return (await usersRepo.readPremiumEnd(transaction, userId))?.subscriptionEndDate ?? null;
      });
    },
  };
}
