// "I bought on my iPhone": a member who bought in the iOS app while signed out (no appAccountToken
// names him) claims the purchase on the web with the order id of Apple's receipt email. The order
// is looked up with the App Store Server API (Look Up Order ID), its signed transactions verified
// as a notification is, and each is recorded as the iOS app's posted transaction would be
// (member-bindings.ts): bound to nobody or to him, it is his, and the notifications kept for it
// apply; bound to another account, nothing changes and support is the way forward.
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import type { AppStoreOrderTransaction } from '../../plugins/app-store';
import type { RateLimiter, RateLimitRule } from '../../security/rate-limit-rules';
import { usersRepo } from '../users';
import { recordForMember } from './member-bindings';
import * as repo from './repo';
import { appStoreMessages } from './service';

export const orderClaimMessages = {
  notFound:
    "We could not find an App Store purchase with this order ID. Check the Order ID in Apple's receipt email.",
  tooMany: 'Too many order IDs tried. Please try again later.',
  belongsElsewhere: (supportEmail: string) =>
    `This App Store purchase belongs to another account. Please contact support at ${supportEmail}.`,
};

export interface OrderClaimsDependencies {
  db: Kysely<Database>;
  /** Look Up Order ID (verified); null while App Store purchases or order lookups are off. */
  lookUpOrder: ((orderId: string) => Promise<AppStoreOrderTransaction[]>) | null;
  rateLimiter: RateLimiter;
  /** Every try counts: an order id is short enough to be guessed, and each try asks Apple. */
  claimsPerMember: RateLimitRule;
  supportEmail: string;
}

export interface OrderClaim {
  subscriptionEndDate: Date | null;
  /** The subscriptions (original transaction ids) now bound to the member. */
  originalTransactionIds: string[];
}

export type OrderClaims = ReturnType<typeof createOrderClaims>;

export function createOrderClaims(deps: OrderClaimsDependencies) {
  return {
    /** `orderId` as the contract hands it: trimmed, upper-cased, 10 to 12 letters and digits. */
    claimOrder: (userId: string, orderId: string) => claimOrder(deps, userId, orderId),
  };
}

async function claimOrder(
  deps: OrderClaimsDependencies,
  userId: string,
  orderId: string,
): Promise<OrderClaim> {
  if (!deps.lookUpOrder) throw new AppError(404, appStoreMessages.off);
  const tries = await deps.rateLimiter.hit(deps.claimsPerMember, userId);
  if (!tries.isAllowed)
    throw new AppError(429, orderClaimMessages.tooMany, tries.retryAfterSeconds);
  const payments = (await deps.lookUpOrder(orderId))
    .filter((found) => found.originalTransactionId)
    // One order's subscriptions locked in one order, whoever claims it.
    .sort((a, b) =>
      `${a.environment}:${a.originalTransactionId}`.localeCompare(
        `${b.environment}:${b.originalTransactionId}`,
      ),
    );
  if (payments.length === 0) throw new AppError(404, orderClaimMessages.notFound);
  return deps.db.transaction().execute(async (transaction) => {
    // Every subscription of the order before the member (recordForMember locks him): the order
    // a notification takes, so the two queue instead of deadlocking.
    for (const found of payments) await repo.lockSubscription(transaction, found);
    for (const found of payments) {
      const outcome = await recordForMember(transaction, userId, {
        payment: { ...found.payload, originalTransactionId: found.originalTransactionId },
        environment: found.environment,
      });
      // Thrown inside the transaction: whatever an earlier purchase of the order changed is
      // rolled back with it.
      if (outcome === 'elsewhere')
        throw new AppError(409, orderClaimMessages.belongsElsewhere(deps.supportEmail));
    }
    const end = await usersRepo.readPremiumEnd(transaction, userId);
    return {
      subscriptionEndDate: end?.subscriptionEndDate ?? null,
      originalTransactionIds: [...new Set(payments.map((found) => found.originalTransactionId))],
    };
  });
}
