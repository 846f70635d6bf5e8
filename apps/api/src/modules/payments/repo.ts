// The SQL of plans, Stripe events, charges, disputes and parked events. No rules live here.
import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';

import type { Database, StripeDisputesTable, StripeFailedRefundsTable } from '../../db/schema';

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

/** True when this failed refund is new: each failure is counted once, whatever the events. */
export async function recordFailedRefund(
  db: Transaction<Database>,
  refund: Insertable<StripeFailedRefundsTable>,
): Promise<boolean> {
  const inserted = await db
    .insertInto('stripeFailedRefunds')
    .values(refund)
    .onConflict((conflict) => conflict.column('refundId').doNothing())
    .returning('refundId')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** What failed of the payment's refunds after `at`: a charge event from before still counts it. */
export async function sumRefundsFailedAfter(
  db: Transaction<Database>,
  paymentIntentId: string,
  at: Date,
): Promise<number> {
  const row = await db
    .selectFrom('stripeFailedRefunds')
    .select(sql<string>`coalesce(sum(amount_cents), 0)`.as('total'))
    .where('paymentIntentId', '=', paymentIntentId)
    .where('failedAt', '>', at)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** Takes a failed refund's amount off what was refunded of the charge; no longer refunded in full. */
export async function takeBackFailedRefund(
  db: Transaction<Database>,
  paymentIntentId: string,
  amountCents: number,
): Promise<void> {
  await db
    .updateTable('stripeCharges')
    .set({
      amountRefundedCents: sql<number>`greatest(0, amount_refunded_cents - ${amountCents})`,
      refundedAt: sql<Date | null>`case when amount_refunded_cents - ${amountCents} >= amount_cents then refunded_at end`,
      updatedAt: sql<Date>`now()`,
    })
    .where('paymentIntentId', '=', paymentIntentId)
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
