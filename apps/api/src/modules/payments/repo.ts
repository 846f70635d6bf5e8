// The SQL of plans, purchases and Stripe events. No rules live here.
import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';

import type { Database, PurchasesTable, StripeDisputesTable } from '../../db/schema';

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
 * Inserts the purchase unless this payment was recorded before; its id when inserted. A payment
 * is its provider's id in its environment (App Store ids repeat across Sandbox and Production;
 * Stripe's have none, and nulls are not distinct there: migrations/0015).
 */
export async function insertPurchase(
  db: Transaction<Database>,
  purchase: Insertable<PurchasesTable>,
): Promise<string | undefined> {
  const inserted = await db
    .insertInto('purchases')
    .values(purchase)
    .onConflict((conflict) =>
      conflict.columns(['provider', 'environment', 'providerPaymentId']).doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}

export function listPurchasesOfUser(db: Executor, userId: string) {
  return db
    .selectFrom('purchases')
    .select(['planName', 'provider', 'createdAt', 'expiresAt', 'revokedAt'])
    .where('userId', '=', userId)
    .orderBy('createdAt', 'desc')
    .execute();
}

/** The Stripe purchase a PaymentIntent paid for. */
export function findPurchaseByPaymentIntent(db: Executor, paymentIntentId: string) {
  return db
    .selectFrom('purchases')
    .select(['id', 'userId'])
    .where('provider', '=', 'Stripe')
    .where('paymentIntentId', '=', paymentIntentId)
    .executeTakeFirst();
}

/** The Stripe purchase of a Checkout Session (for purchases recorded before PaymentIntents were). */
export function findPurchaseBySession(db: Executor, sessionId: string) {
  return db
    .selectFrom('purchases')
    .select(['id', 'userId'])
    .where('provider', '=', 'Stripe')
    .where('providerPaymentId', '=', sessionId)
    .executeTakeFirst();
}

/**
 * Marks a purchase of a deleted account refunded (`revocation`) or counting again (undefined);
 * answers whether it is revoked now. Such a purchase has no ledger: no member's days to move.
 */
export async function markDetachedPurchase(
  db: Transaction<Database>,
  purchaseId: string,
  revocation: { at: Date; reason: string } | null | undefined,
): Promise<boolean> {
  await db
    .updateTable('purchases')
    .set({ revokedAt: revocation?.at ?? null, revokedReason: revocation?.reason ?? null })
    .where('id', '=', purchaseId)
    .where('userId', 'is', null)
    .execute();
  return Boolean(revocation);
}

export async function setPurchasePaymentIntent(
  db: Transaction<Database>,
  purchaseId: string,
  paymentIntentId: string,
): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ paymentIntentId })
    .where('id', '=', purchaseId)
    .where('paymentIntentId', 'is', null)
    .execute();
}

/**
 * Until the transaction ends, nobody else handles this payment: a refund recorded while its
 * purchase is being granted is seen by one of the two.
 */
export async function lockPayment(db: Transaction<Database>, paymentIntentId: string) {
  await sql`select pg_advisory_xact_lock(hashtext(${`stripe-payment:${paymentIntentId}`}))`.execute(
    db,
  );
}

/** What Stripe said of a charge's refunds; an older event never undoes a newer one. */
export async function recordChargeRefunds(
  db: Transaction<Database>,
  charge: {
    paymentIntentId: string;
    chargeId: string;
    amountCents: number;
    amountRefundedCents: number;
    currency: string;
    isFullyRefunded: boolean;
    at: Date;
  },
): Promise<void> {
  const refundedAt = charge.isFullyRefunded ? charge.at : null;
  await db
    .insertInto('stripeCharges')
    .values({
      paymentIntentId: charge.paymentIntentId,
      chargeId: charge.chargeId,
      amountCents: charge.amountCents,
      amountRefundedCents: charge.amountRefundedCents,
      currency: charge.currency,
      refundedAt,
    })
    .onConflict((conflict) =>
      conflict.column('paymentIntentId').doUpdateSet({
        amountRefundedCents: sql<number>`greatest(stripe_charges.amount_refunded_cents, excluded.amount_refunded_cents)`,
        refundedAt: sql<Date | null>`coalesce(stripe_charges.refunded_at, excluded.refunded_at)`,
        updatedAt: sql<Date>`now()`,
      }),
    )
    .execute();
}

/** A dispute as Stripe describes it; a closed dispute is not reopened by a late "created". */
export async function recordDispute(
  db: Transaction<Database>,
  dispute: Insertable<StripeDisputesTable>,
): Promise<void> {
  await db
    .insertInto('stripeDisputes')
    .values(dispute)
    .onConflict((conflict) =>
      conflict.column('id').doUpdateSet({
        status: sql<string>`case when excluded.closed_at is not null or stripe_disputes.closed_at is null then excluded.status else stripe_disputes.status end`,
        closedAt: sql<Date | null>`coalesce(excluded.closed_at, stripe_disputes.closed_at)`,
        updatedAt: sql<Date>`now()`,
      }),
    )
    .execute();
}

/** Whether the payment was refunded in full, or lost a dispute: what takes its days out. */
export async function findPaymentReversal(db: Transaction<Database>, paymentIntentId: string) {
  const charge = await db
    .selectFrom('stripeCharges')
    .select('refundedAt')
    .where('paymentIntentId', '=', paymentIntentId)
    .executeTakeFirst();
  const lostDispute = await db
    .selectFrom('stripeDisputes')
    .select('closedAt')
    .where('paymentIntentId', '=', paymentIntentId)
    .where('status', '=', 'lost')
    .orderBy('closedAt')
    .executeTakeFirst();
  return {
    refundedAt: charge?.refundedAt ?? null,
    disputeLostAt: lostDispute ? (lostDispute.closedAt ?? new Date()) : null,
  };
}

/** Keeps a paid checkout that cannot be granted yet (once: a replay that fails again keeps it). */
export async function parkEvent(
  db: Transaction<Database>,
  event: { eventId: string; type: string; payload: unknown; reason: string },
): Promise<void> {
  await db
    .insertInto('stripeParkedEvents')
    .values({ ...event, payload: JSON.stringify(event.payload), replayedAt: null })
    .onConflict((conflict) => conflict.column('eventId').doNothing())
    .execute();
}

export function findParkedEvent(db: Executor, eventId: string) {
  return db
    .selectFrom('stripeParkedEvents')
    .select(['eventId', 'type', 'payload', 'reason', 'parkedAt', 'replayedAt'])
    .where('eventId', '=', eventId)
    .executeTakeFirst();
}

export function listParkedEvents(db: Executor) {
  return db
    .selectFrom('stripeParkedEvents')
    .select(['eventId', 'type', 'reason', 'parkedAt'])
    .where('replayedAt', 'is', null)
    .orderBy('parkedAt')
    .execute();
}

export async function markParkedEventReplayed(
  db: Transaction<Database>,
  eventId: string,
): Promise<void> {
  await db
    .updateTable('stripeParkedEvents')
    .set({ replayedAt: sql<Date>`now()` })
    .where('eventId', '=', eventId)
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
