// The SQL of the premium ledger: its entries, in the order they were written. No rules live here
// (ledger.ts has them); the periods it derives go to purchases-repo.ts, the end to the users repo.
import { type Insertable, type Transaction } from 'kysely';

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
