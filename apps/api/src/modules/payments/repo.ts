// The SQL of plans, purchases and Stripe events. No rules live here.
import { type Insertable, type Kysely, type Transaction } from 'kysely';

import type { Database, PurchasesTable } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

export function listPlans(db: Executor) {
  return db
    .selectFrom('plans')
    .select(['id', 'name', 'days', 'priceCents', 'currency'])
    .orderBy('days')
    .execute();
}

export function findPlan(db: Executor, planId: string) {
  return db
    .selectFrom('plans')
    .select(['id', 'name', 'days', 'priceCents', 'currency'])
    .where('id', '=', planId)
    .executeTakeFirst();
}

/** True when the event is new; false when it was handled before (or is being handled now). */
export async function recordStripeEvent(
  db: Transaction<Database>,
  event: { id: string; type: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('stripeEvents')
    .values(event)
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Inserts the purchase unless this payment was recorded before; true when inserted. */
export async function insertPurchase(
  db: Transaction<Database>,
  purchase: Insertable<PurchasesTable>,
): Promise<boolean> {
  const inserted = await db
    .insertInto('purchases')
    .values(purchase)
    .onConflict((conflict) => conflict.columns(['provider', 'providerPaymentId']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export function listPurchasesOfUser(db: Executor, userId: string) {
  return db
    .selectFrom('purchases')
    .select(['planName', 'provider', 'createdAt', 'expiresAt'])
    .where('userId', '=', userId)
    .orderBy('createdAt', 'desc')
    .execute();
}

export function findPurchaseByPayment(db: Executor, providerPaymentId: string) {
  return db
    .selectFrom('purchases')
    .select(['startsAt', 'days', 'amountCents'])
    .where('provider', '=', 'Stripe')
    .where('providerPaymentId', '=', providerPaymentId)
    .executeTakeFirst();
}
