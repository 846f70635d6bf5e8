// The member's purchases as his Purchase History lists them (`GET /users/subscriptions/personal`),
// written once: the support desk's "view as the member" answers exactly this.
import type { PurchaseItem } from '@kegel/contract';
import { DEFAULT_LOCALE, type PageLocale } from '@kegel/contract/i18n';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { purchaseNameIn, purchasesRepo } from '../premium';

export async function listPurchaseItems(
  db: Kysely<Database>,
  userId: string,
  /** What the names are worded in: the member's page's language (purchase-names.ts). */
  locale: PageLocale = DEFAULT_LOCALE,
): Promise<PurchaseItem[]> {
  const purchases = await purchasesRepo.listPurchasesOfUser(db, userId);
  return purchases.map((purchase) => ({
    name: purchaseNameIn(locale, {
      ...purchase,
      grant:
        purchase.grantDays === null || purchase.grantReason === null
          ? null
          : { days: purchase.grantDays, reason: purchase.grantReason },
    }),
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
