// The SQL of operator_grants: the premium days an operator granted, each tied to its purchase of
// provider 'Support' and its idempotency key. No rules live here (premium-grants.ts has them).
import type { Insertable, Kysely, Transaction } from 'kysely';

import type { Database, OperatorGrantsTable } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

const GRANT_COLUMNS = [
  'operatorGrants.id',
  'operatorGrants.userId',
  'operatorGrants.purchaseId',
  'operatorGrants.days',
  'operatorGrants.reason',
  'operatorGrants.grantedAt',
  'operatorGrants.removedAt',
  'purchases.planName',
] as const;

export function findGrantByKey(db: Executor, userId: string, idempotencyKey: string) {
  return db
    .selectFrom('operatorGrants')
    .innerJoin('purchases', 'purchases.id', 'operatorGrants.purchaseId')
    .select(GRANT_COLUMNS)
    .where('operatorGrants.userId', '=', userId)
    .where('operatorGrants.idempotencyKey', '=', idempotencyKey)
    .executeTakeFirst();
}

export function findGrant(db: Executor, grantId: string) {
  return db
    .selectFrom('operatorGrants')
    .innerJoin('purchases', 'purchases.id', 'operatorGrants.purchaseId')
    .select(GRANT_COLUMNS)
    .where('operatorGrants.id', '=', grantId)
    .executeTakeFirst();
}

export async function insertGrant(
  db: Transaction<Database>,
  grant: Insertable<OperatorGrantsTable>,
): Promise<void> {
  await db.insertInto('operatorGrants').values(grant).execute();
}

export async function markGrantRemoved(
  db: Transaction<Database>,
  grantId: string,
  removal: { at: Date; by: string; reason: string },
): Promise<void> {
  await db
    .updateTable('operatorGrants')
    .set({ removedAt: removal.at, removedBy: removal.by, removedReason: removal.reason })
    .where('id', '=', grantId)
    .execute();
}
