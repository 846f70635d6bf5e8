// The rules of App Store purchases: what each verified notification or posted transaction does
// to a member's premium. Each App Store transaction (one period of a subscription) is a purchase
// of provider 'Apple' whose period is a ledger row; a refund or revocation takes that
// transaction's period out, a refund reversed puts it back; a billing grace period extends the
// latest period. A subscription is bound to an account by the appAccountToken the iOS app sets
// (the account id), or by the signed-in member who posts its first transaction; notifications
// for a subscription bound to no account yet are kept and applied when the binding arrives.
// Sandbox and Production number their transactions apart: a purchase or subscription is its id
// in the environment its payload was verified for, never the same id in the other.
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import { AppStorePayloadRefused, type AppStoreVerifier } from '../../security/app-store-verifier';
import { usersRepo } from '../users';
import { oweConsumptionAnswer } from './consumption-reports';
import { recordForMember } from './member-bindings';
import { accountNamedBy, applyPending, type Notice, saveState } from './member-transactions';
import * as repo from './repo';

export const appStoreMessages = {
  notVerified: 'The App Store payload could not be verified',
  boundElsewhere: 'This App Store purchase belongs to another account',
  off: 'App Store purchases are not enabled on this server',
};

export interface AppStoreServiceDependencies {
  db: Kysely<Database>;
  /** Null when App Store support is off: every call answers 404. */
  verifier: AppStoreVerifier | null;
  /** Whether Apple's refund requests are answered (an App Store Server API key is set). */
  answersConsumptionRequests?: boolean;
}

export type AppStoreService = ReturnType<typeof createAppStoreService>;

export function createAppStoreService(deps: AppStoreServiceDependencies) {
  return {
    /** An App Store Server Notification V2; resolves once its change is committed. */
    receiveNotification: (signedPayload: string) => receiveNotification(deps, signedPayload),
    /** What the iOS app posts after a purchase or restore: the member's premium end after it. */
    recordTransaction: (userId: string, signedTransaction: string) =>
      recordTransaction(deps, userId, signedTransaction),
  };
}

function verifierOrOff(deps: AppStoreServiceDependencies): AppStoreVerifier {
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

/** An App Store Server Notification V2; resolves once its change is committed. */
async function receiveNotification(
  deps: AppStoreServiceDependencies,
  signedPayload: string,
): Promise<'applied' | 'duplicate' | 'kept'> {
  const verified = await refusedAs400(() => verifierOrOff(deps).verifyNotification(signedPayload));
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
  return deps.db.transaction().execute(async (transaction) => {
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
    if (notice.type === 'CONSUMPTION_REQUEST' && deps.answersConsumptionRequests && payment) {
      await oweConsumptionAnswer(transaction, {
        notificationUuid: notice.notificationUuid,
        userId: owner,
        environment: notice.environment,
        transactionId: payment.transactionId ?? key.originalTransactionId,
        originalTransactionId: key.originalTransactionId,
        reason: notification.data?.consumptionRequestReason ?? null,
        signedAt: notice.signedAt,
      });
    }
    return 'applied';
  });
}

/** What the iOS app posts after a purchase or restore: the member's premium end after it. */
async function recordTransaction(
  deps: AppStoreServiceDependencies,
  userId: string,
  signedTransaction: string,
): Promise<Date | null> {
  const { transaction: payment, environment } = await refusedAs400(() =>
    verifierOrOff(deps).verifyTransaction(signedTransaction),
  );
  const originalTransactionId = payment.originalTransactionId;
  if (!originalTransactionId)
    throw new AppError(400, `${appStoreMessages.notVerified}: no originalTransactionId`);
  return deps.db.transaction().execute(async (transaction) => {
    const payload = { ...payment, originalTransactionId };
    const outcome = await recordForMember(transaction, userId, { payment: payload, environment });
    if (outcome === 'elsewhere') throw new AppError(403, appStoreMessages.boundElsewhere);
    return (await usersRepo.readPremiumEnd(transaction, userId))?.subscriptionEndDate ?? null;
  });
}
