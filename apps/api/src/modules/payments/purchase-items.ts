// The member's purchases as his Purchase History lists them (`GET /users/subscriptions/personal`),
// written once: the support desk's "view as the member" answers exactly this.
import type { PurchaseItem } from '@kegel/contract';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { purchasesRepo } from '../premium';

export async function listPurchaseItems(
  db: Kysely<Database>,
  userId: string,
): Promise<PurchaseItem[]> {
  const purchases = await purchasesRepo.listPurchasesOfUser(db, userId);
  return purchases.map((purchase) => ({
    name: purchase.planName,
    provider: purchase.provider,
    createdAt: purchase.createdAt.toISOString(),
    expiresAt: purchase.expiresAt.toISOString(),
    ...(purchase.revokedAt
      ? {
          refundedAt: purchase.revokedAt.toISOString(),
          // The ledger's reason for a lost dispute (payment-reversals.ts).
          refundKind: purchase.revokedReason === 'dispute lost' ? 'chargeback' : 'refund',
        }
      : {}),
  }));
}
