// Refunds by the support desk (ADR 020): admin only, through Stripe's API. The days are not
// touched here: Stripe's charge.refunded event takes them out (payments/payment-reversals.ts), as
// for a refund made in Stripe's dashboard, so both ways end the same. Nothing is recorded unless
// Stripe refunded: the audit row is written after its answer, in a transaction of its own.
import { formatMoney, type Refund, type RefundRequest, supportDeskMessages } from '@kegel/contract';
import type Stripe from 'stripe';

import { AppError, ProviderError } from '../../errors';
import { mailLocaleOf } from '../../mail/mail-locale';
import { refundIssuedEmail } from '../../mail/support-desk-templates';
import { loadStripeSdk } from '../../plugins/payments';
import { type Operator, requireAdmin } from '../operators';
import { purchasesRepo } from '../premium';
import { usersRepo } from '../users';
import {
  auditActorOf,
  type DeskAction,
  refuseOwnAccount,
  type SupportDeskDependencies,
} from './rules';

/** Stripe's refusals that mean "more than what is left": a refund raced ours, or came first. */
const TOO_LARGE_CODES = ['amount_too_large', 'charge_already_refunded'];

export async function refundPurchase(
  deps: SupportDeskDependencies,
  { operator, origin }: DeskAction,
  purchaseId: string,
  request: RefundRequest,
): Promise<Refund> {
  requireAdmin(operator);
  const purchase = await purchasesRepo.findPurchaseForRefund(deps.db, purchaseId);
  if (!purchase) throw new AppError(404, supportDeskMessages.purchaseNotFound);
  if (purchase.provider === 'Apple') throw new AppError(409, supportDeskMessages.appStoreRefund);
  if (purchase.provider !== 'Stripe' || !purchase.paymentIntentId || purchase.amountCents <= 0) {
    throw new AppError(409, supportDeskMessages.notRefundable);
  }
  refuseOwnAccount(operator, purchase.userId);
  const paymentIntentId = purchase.paymentIntentId;

  const { refund, refundedBefore } = await createStripeRefund(await deps.stripe(), operator, {
    purchase,
    paymentIntentId,
    amountCents: request.amountCents,
  });

  // Stripe answered an earlier request with this key (a double click): that one recorded it.
  if (refund.lastResponse?.headers['idempotent-replayed'] === 'true') return answerOf(refund);

  await deps.db.transaction().execute(async (transaction) => {
    const member = purchase.userId
      ? await usersRepo.findUserById(transaction, purchase.userId)
      : undefined;
    await deps.auditTrail.record(
      transaction,
      { actor: auditActorOf(operator), origin },
      {
        action: 'refund.create',
        ...(member ? { target: { userId: member.id, email: member.email } } : {}),
        reason: request.reason,
        changes: {
          before: { purchaseId: purchase.id, refundedCents: refundedBefore },
          after: {
            purchaseId: purchase.id,
            refundedCents: refundedBefore + refund.amount,
            stripeRefundId: refund.id,
            status: refund.status,
          },
        },
      },
    );
    if (member) {
      await deps.mail.enqueue(transaction, {
        to: member.email,
        userId: member.id,
        template: 'support-refund',
        content: refundIssuedEmail({
          amount: formatMoney(refund.amount, refund.currency),
          purchaseName: purchase.planName,
          reason: request.reason,
          supportEmail: deps.supportEmail,
          locale: mailLocaleOf(member),
        }),
      });
    }
  });
  deps.countAction('refund.create');
  return answerOf(refund);
}

/**
 * Asks Stripe for the refund, from what Stripe says is left: 409 when it is more than that (or
 * another admin's is under way), 502 for any other refusal of Stripe's.
 */
async function createStripeRefund(
  stripe: Stripe,
  operator: Operator,
  {
    purchase,
    paymentIntentId,
    amountCents,
  }: {
    purchase: { id: string; amountCents: number; amountRefundedCents: number | null };
    paymentIntentId: string;
    amountCents: number | undefined;
  },
): Promise<{ refund: Stripe.Response<Stripe.Refund>; refundedBefore: number }> {
  try {
    // What Stripe's events told us may lag behind a refund made a moment ago: Stripe's own list
    // says what is left now, so a second refund asked meanwhile is neither too large nor taken
    // for a repeat of the first.
    const refundedBefore = Math.max(
      purchase.amountRefundedCents ?? 0,
      await refundedAtStripe(stripe, paymentIntentId),
    );
    const left = purchase.amountCents - refundedBefore;
    const amount = amountCents ?? left;
    if (left <= 0 || amount > left) throw new AppError(409, supportDeskMessages.refundTooLarge);
    const refund = await stripe.refunds.create(
      {
        payment_intent: paymentIntentId,
        amount,
        reason: 'requested_by_customer',
        metadata: {
          purchaseId: purchase.id,
          operatorId: operator.userId,
          operatorEmail: operator.email,
          operatorRole: operator.role,
        },
      },
      // The same refund asked twice from the same state (a double click, two admins at once) is
      // made once: Stripe answers the second with the first's refund.
      { idempotencyKey: `ops-refund:${purchase.id}:${refundedBefore}:${amount}` },
    );
    return { refund, refundedBefore };
  } catch (error) {
    if (error instanceof AppError) throw error;
    const { errors } = await loadStripeSdk();
    if (
      error instanceof errors.StripeInvalidRequestError &&
      TOO_LARGE_CODES.includes(error.code ?? '')
    ) {
      throw new AppError(409, supportDeskMessages.refundTooLarge);
    }
    // The same key from the same state, asked by another admin at once: his refund is the one
    // (the metadata, naming the operator, differs, so Stripe refuses to replay it as ours).
    if (error instanceof errors.StripeIdempotencyError) {
      throw new AppError(409, supportDeskMessages.refundUnderWay);
    }
    // Logged in full and answered 502: Stripe's text is about our account, not for the desk.
    throw new ProviderError('Stripe', false, error);
  }
}

/** The refunds of a payment that Stripe made or is making (not failed or canceled). */
async function refundedAtStripe(stripe: Stripe, paymentIntentId: string): Promise<number> {
  let cents = 0;
  for await (const refund of stripe.refunds.list({ payment_intent: paymentIntentId, limit: 100 })) {
    if (refund.status !== 'failed' && refund.status !== 'canceled') cents += refund.amount;
  }
  return cents;
}

function answerOf(refund: Stripe.Refund): Refund {
  return {
    id: refund.id,
    amountCents: refund.amount,
    currency: refund.currency,
    status: refund.status ?? 'pending',
  };
}
