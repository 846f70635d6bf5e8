// Refunds and disputes: each event recorded once, and applied to the purchase its payment paid
// for. A full refund or a lost dispute takes the purchase's days out (the ledger shifts the
// later passes back); a partial refund or an opened dispute is only recorded. A refund that
// failed afterwards (charge.refund.updated, status failed) gives the days back, as a dispute
// won on appeal does.
import type { Transaction } from 'kysely';
import type Stripe from 'stripe';

import type { Database } from '../../db/schema';
import { ledger, purchasesRepo } from '../premium';
import { usersRepo } from '../users';
import * as repo from './repo';
import {
  eventTime,
  idOf,
  type StripeEventOutcome,
  type StripeEventsDependencies,
} from './stripe-event-facts';

/** Takes the purchase's days out when its payment was refunded in full or lost a dispute. */
export async function applyReversal(
  transaction: Transaction<Database>,
  purchase: { id: string; userId: string | null },
  paymentIntentId: string,
  reinstatedBecause = 'dispute won',
): Promise<boolean> {
  const reversal = await repo.findPaymentReversal(transaction, paymentIntentId);
  const revokedAt = reversal.refundedAt ?? reversal.disputeLostAt;
  if (purchase.userId === null) {
    // Its buyer deleted his account: no premium to change, but the books still say it was
    // refunded (or charged back), or that it counts again.
    const reason = reversal.refundedAt ? 'refund' : 'dispute lost';
    return purchasesRepo.markDetachedPurchase(
      transaction,
      purchase.id,
      revokedAt && { at: revokedAt, reason },
    );
  }
  if (revokedAt) {
    return ledger.revokePurchase(transaction, {
      userId: purchase.userId,
      purchaseId: purchase.id,
      reason: reversal.refundedAt ? 'refund' : 'dispute lost',
      at: revokedAt,
    });
  }
  // Neither (any more): a dispute lost and then won on appeal, or a refund that failed, gives the
  // days back.
  await ledger.reinstatePurchase(transaction, {
    userId: purchase.userId,
    purchaseId: purchase.id,
    reason: reinstatedBecause,
    at: new Date(),
  });
  return false;
}

/**
 * The purchase a PaymentIntent paid for. One granted before PaymentIntents were recorded is found
 * through Stripe (the Checkout Session of that PaymentIntent), and remembered.
 */
async function findPurchaseOfPayment(deps: StripeEventsDependencies, paymentIntentId: string) {
  const purchase = await purchasesRepo.findPurchaseByPaymentIntent(deps.db, paymentIntentId);
  if (purchase) return purchase;
  const sessions = await (
    await deps.stripe()
  ).checkout.sessions.list({
    payment_intent: paymentIntentId,
    limit: 1,
  });
  const session = sessions.data[0];
  return session ? purchasesRepo.findPurchaseBySession(deps.db, session.id) : undefined;
}

/** Records a refund or dispute event and applies it to its purchase, once. */
async function recordReversal(
  deps: StripeEventsDependencies,
  event: Stripe.Event,
  paymentIntentId: string,
  record: (transaction: Transaction<Database>) => Promise<void>,
  reinstatedBecause?: string,
): Promise<StripeEventOutcome | { revoked: boolean }> {
  const known = await findPurchaseOfPayment(deps, paymentIntentId);
  return deps.db.transaction().execute(async (transaction) => {
    if (!(await repo.recordStripeEvent(transaction, { id: event.id, type: event.type }))) {
      return { kind: 'duplicate-event' as const };
    }
    await repo.lockPayment(transaction, paymentIntentId);
    // The member's row before his purchase's: a grant for him holds the first and then rewrites
    // the second, so taking them the other way round could deadlock with it.
    if (known?.userId) await usersRepo.lockUser(transaction, known.userId);
    await record(transaction);
    if (known) await purchasesRepo.setPurchasePaymentIntent(transaction, known.id, paymentIntentId);
    // Read again under the payment's lock: a grant may have committed since.
    const purchase = await purchasesRepo.findPurchaseByPaymentIntent(transaction, paymentIntentId);
    if (!purchase) return { kind: 'unknown-payment' as const };
    return {
      revoked: await applyReversal(transaction, purchase, paymentIntentId, reinstatedBecause),
    };
  });
}

export async function handleRefund(
  deps: StripeEventsDependencies,
  event: Stripe.Event,
): Promise<StripeEventOutcome> {
  const charge = event.data.object as Stripe.Charge;
  const paymentIntentId = idOf(charge.payment_intent);
  if (!paymentIntentId) return { kind: 'incomplete', reason: 'refund without a payment' };
  const at = eventTime(event);
  const result = await recordReversal(deps, event, paymentIntentId, async (transaction) => {
    // An event older than a refund's failure still counts that refund: read less what failed.
    const failed = await repo.sumRefundsFailedAfter(transaction, paymentIntentId, at);
    const amountRefunded = Math.max(0, charge.amount_refunded - failed);
    await repo.recordChargeRefunds(transaction, {
      paymentIntentId,
      chargeId: charge.id,
      amountCents: charge.amount,
      amountRefundedCents: amountRefunded,
      currency: charge.currency,
      // A partial refund keeps the days: the member still paid for them (ADR 012).
      isFullyRefunded: amountRefunded >= charge.amount,
      at,
    });
  });
  return 'kind' in result ? result : { kind: 'refund-recorded', revoked: result.revoked };
}

/**
 * `charge.refund.updated`: a refund that failed (the card holder's bank returned the money) no
 * longer counts, once per refund; the purchase's days come back unless what is still refunded
 * covers the whole charge. Other updates (pending → succeeded) change nothing here.
 */
export async function handleRefundUpdate(
  deps: StripeEventsDependencies,
  event: Stripe.Event,
): Promise<StripeEventOutcome> {
  const refund = event.data.object as Stripe.Refund;
  if (refund.status !== 'failed') return { kind: 'refund-recorded', revoked: false };
  const paymentIntentId = idOf(refund.payment_intent);
  if (!paymentIntentId) return { kind: 'incomplete', reason: 'refund without a payment' };
  const result = await recordReversal(
    deps,
    event,
    paymentIntentId,
    async (transaction) => {
      const isNew = await repo.recordFailedRefund(transaction, {
        refundId: refund.id,
        paymentIntentId,
        amountCents: refund.amount,
        currency: refund.currency,
        failedAt: eventTime(event),
      });
      if (isNew) await repo.takeBackFailedRefund(transaction, paymentIntentId, refund.amount);
    },
    'refund failed',
  );
  return 'kind' in result ? result : { kind: 'refund-recorded', revoked: result.revoked };
}

export async function handleDispute(
  deps: StripeEventsDependencies,
  event: Stripe.Event,
): Promise<StripeEventOutcome> {
  const dispute = event.data.object as Stripe.Dispute;
  const paymentIntentId = idOf(dispute.payment_intent);
  if (!paymentIntentId) return { kind: 'incomplete', reason: 'dispute without a payment' };
  const result = await recordReversal(deps, event, paymentIntentId, (transaction) =>
    repo.recordDispute(transaction, {
      id: dispute.id,
      paymentIntentId,
      chargeId: idOf(dispute.charge) ?? '',
      amountCents: dispute.amount,
      currency: dispute.currency,
      reason: dispute.reason,
      status: dispute.status,
      openedAt: new Date(dispute.created * 1000),
      closedAt: event.type === 'charge.dispute.closed' ? eventTime(event) : null,
    }),
  );
  return 'kind' in result ? result : { kind: 'dispute-recorded', revoked: result.revoked };
}
