// The SQL of purchases: the premium module owns the table. Stripe and the App Store record and
// find their purchases here; the ledger writes each purchase's period. No rules live here.
import { type Insertable, type Kysely, type Transaction } from 'kysely';

import type { Database, PurchasesTable } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

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
  return (
    db
      .selectFrom('purchases')
      // A support grant's days and reason: its name in the member's language (purchase-names.ts).
      .leftJoin('operatorGrants', 'operatorGrants.purchaseId', 'purchases.id')
      .select([
        'purchases.planName',
        'purchases.provider',
        'purchases.days',
        'purchases.createdAt',
        'purchases.expiresAt',
        'purchases.revokedAt',
        'purchases.revokedReason',
        'operatorGrants.days as grantDays',
        'operatorGrants.reason as grantReason',
      ])
      .where('purchases.userId', '=', userId)
      .orderBy('purchases.createdAt', 'desc')
      .execute()
  );
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

/** The purchase recorded for one App Store transaction of that environment. */
export function findApplePurchase(db: Executor, environment: string, transactionId: string) {
  return db
    .selectFrom('purchases')
    .select(['id', 'userId'])
    .where('provider', '=', 'Apple')
    .where('environment', '=', environment)
    .where('providerPaymentId', '=', transactionId)
    .executeTakeFirst();
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

/** Ties a purchase left by a deleted account to the member who proved its transaction. */
export async function adoptPurchase(
  db: Transaction<Database>,
  purchaseId: string,
  userId: string,
): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ userId })
    .where('id', '=', purchaseId)
    .where('userId', 'is', null)
    .execute();
}

/**
 * Writes a purchase's period, counting again; a purchase whose period and state are already these
 * is left as it is. The ledger writes every purchase of the member after each change, and a row
 * written again for nothing is a page dirtied and logged, read from disk first at scale (issue 30).
 */
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
    .where((eb) =>
      eb.or([
        eb('startsAt', 'is distinct from', period.startsAt),
        eb('expiresAt', 'is distinct from', period.expiresAt),
        eb('revokedAt', 'is not', null),
        eb('revokedReason', 'is not', null),
      ]),
    )
    .execute();
}

/** Marks a purchase revoked; one revoked so already is left as it is (writePurchasePeriod). */
export async function markPurchaseRevoked(
  db: Transaction<Database>,
  purchaseId: string,
  revocation: { at: Date; reason: string },
): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ revokedAt: revocation.at, revokedReason: revocation.reason })
    .where('id', '=', purchaseId)
    .where((eb) =>
      eb.or([
        eb('revokedAt', 'is distinct from', revocation.at),
        eb('revokedReason', 'is distinct from', revocation.reason),
      ]),
    )
    .execute();
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

/**
 * A purchase as the support desk refunds it: its provider, payment and what Stripe says was
 * refunded of it so far (0 before any refund event).
 */
export function findPurchaseForRefund(db: Executor, purchaseId: string) {
  return db
    .selectFrom('purchases')
    .leftJoin('stripeCharges', 'stripeCharges.paymentIntentId', 'purchases.paymentIntentId')
    .select([
      'purchases.id',
      'purchases.userId',
      'purchases.provider',
      'purchases.planName',
      'purchases.paymentIntentId',
      'purchases.amountCents',
      'purchases.currency',
      'purchases.days',
      'stripeCharges.amountRefundedCents',
    ])
    .where('purchases.id', '=', purchaseId)
    .executeTakeFirst();
}
