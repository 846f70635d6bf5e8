import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';

import type { Database, PurchasesTable } from '../../db/schema';

/** The SQL of plans, purchases and Stripe events. No rules live here. */
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

/**
 * Locks the user's row until the transaction ends (so grants for one user take turns) and says
 * when a purchase of `days` made now would start and end: after the current premium, or now.
 */
export function lockPremiumPeriod(db: Transaction<Database>, userId: string, days: number) {
  return db
    .selectFrom('users')
    .select([
      sql<Date>`greatest(now(), coalesce(subscription_end_date, now()))`.as('startsAt'),
      sql<Date>`greatest(now(), coalesce(subscription_end_date, now())) + make_interval(days => ${days})`.as(
        'expiresAt',
      ),
    ])
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirstOrThrow();
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

export async function setPremiumEnd(
  db: Transaction<Database>,
  userId: string,
  endsAt: Date,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ subscriptionEndDate: endsAt, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId)
    .execute();
}

export function listPurchasesOfUser(db: Executor, userId: string) {
  return db
    .selectFrom('purchases')
    .select(['planName', 'provider', 'createdAt', 'expiresAt'])
    .where('userId', '=', userId)
    .orderBy('createdAt', 'desc')
    .execute();
}

export async function setStripeCustomerIfMissing(
  db: Executor,
  userId: string,
  customerId: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ stripeCustomerId: customerId })
    .where('id', '=', userId)
    .where('stripeCustomerId', 'is', null)
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

export function findStripeCustomer(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .select(['email', 'stripeCustomerId'])
    .where('id', '=', userId)
    .executeTakeFirst();
}
