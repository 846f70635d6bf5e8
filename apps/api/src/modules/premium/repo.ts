// The SQL of the premium ledger and of what it derives: purchase periods and the member's end.
// No rules live here (ledger.ts has them).
import { type Insertable, sql, type Transaction } from 'kysely';

import type { Database, PremiumLedgerTable } from '../../db/schema';

/** A member's entries, in the order they were written: the order the fold reads them. */
export function listEntries(db: Transaction<Database>, userId: string) {
  return db
    .selectFrom('premiumLedger')
    .select(['source', 'entry', 'purchaseId', 'days', 'endsAt', 'reason', 'occurredAt'])
    .where('userId', '=', userId)
    .orderBy('sequence')
    .execute();
}

export async function appendEntry(
  db: Transaction<Database>,
  entry: Insertable<PremiumLedgerTable>,
): Promise<void> {
  await db.insertInto('premiumLedger').values(entry).execute();
}

export async function writePurchasePeriod(
  db: Transaction<Database>,
  purchaseId: string,
  period: { startsAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .updateTable('purchases')
    .set({
      startsAt: period.startsAt,
      expiresAt: period.expiresAt,
      revokedAt: null,
      revokedReason: null,
    })
    .where('id', '=', purchaseId)
    .execute();
}

export async function markPurchaseRevoked(
  db: Transaction<Database>,
  purchaseId: string,
  revocation: { at: Date; reason: string },
): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ revokedAt: revocation.at, revokedReason: revocation.reason })
    .where('id', '=', purchaseId)
    .execute();
}

export async function writePremiumEnd(
  db: Transaction<Database>,
  userId: string,
  endsAt: Date | null,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ subscriptionEndDate: endsAt, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId)
    .execute();
}
