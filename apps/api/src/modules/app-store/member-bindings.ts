// The one rule of which member a verified App Store transaction may be recorded for, shared by
// the transactions the iOS app posts and the purchases a member claims by order id: a token
// naming another account refuses, and without one the first binding holds.
import type { JWSTransactionDecodedPayload } from '@apple/app-store-server-library';
import type { Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import type { AppStoreEnvironment } from '../../security/app-store-verifier';
import { usersRepo } from '../users';
import { accountNamedBy, applyPending, applyToMember, saveState } from './member-transactions';
import * as repo from './repo';

/** A transaction Apple signed, verified for its environment, with its subscription's id. */
export interface VerifiedPayment {
  payment: JWSTransactionDecodedPayload & { originalTransactionId: string };
  environment: AppStoreEnvironment;
}

/**
 * Records the transaction for `userId` and binds its subscription to him, applying the
 * notifications kept for it; 'elsewhere', changing nothing, when it belongs to another account.
 * Locks the subscription, then the member (the order every change of either takes).
 */
export async function recordForMember(
  transaction: Transaction<Database>,
  userId: string,
  { payment, environment }: VerifiedPayment,
): Promise<'recorded' | 'elsewhere'> {
  const key = { environment, originalTransactionId: payment.originalTransactionId };
  await repo.lockSubscription(transaction, key);
  await usersRepo.lockUser(transaction, userId);
  // A token naming another account refuses; one naming no account (a deleted one: the
  // token outlives it on Apple's side) counts as no token.
  const tokenOwner = await accountNamedBy(transaction, payment.appAccountToken);
  if (tokenOwner && tokenOwner !== userId) return 'elsewhere';
  const subscription = await repo.findSubscription(transaction, key);
  // Without a token, the first binding holds; a token naming this member is proof enough.
  if (subscription?.userId && subscription.userId !== userId && tokenOwner !== userId)
    return 'elsewhere';
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
  return 'recorded';
}
