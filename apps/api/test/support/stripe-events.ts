// Stripe webhook events as Stripe sends them (the fields this product reads), signed with the
// test secret through the official SDK, for tests that drive the webhook directly.
import { randomUUID } from 'node:crypto';

import type { FastifyInstance } from 'fastify';
import Stripe from 'stripe';

import { TEST_STRIPE_WEBHOOK_SECRET } from './test-app';

const stripe = new Stripe('sk_test_only_for_signing');

export interface StripeTestEvent {
  id: string;
  object: 'event';
  type: string;
  created?: number;
  data: { object: Record<string, unknown> };
}

function stripeId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

export function newPaymentIntentId(): string {
  return stripeId('pi');
}

export function checkoutEvent(options: {
  sessionId?: string;
  email?: string | null;
  planId?: string;
  type?: string;
  paymentStatus?: 'paid' | 'unpaid';
  clientReferenceId?: string;
  customerId?: string;
  paymentIntentId?: string | null;
  amountTotal?: number;
  currency?: string;
  /** Seconds since the epoch, as Stripe's `created`. */
  created?: number;
}): StripeTestEvent {
  return {
    id: stripeId('evt'),
    object: 'event',
    type: options.type ?? 'checkout.session.completed',
    ...(options.created ? { created: options.created } : {}),
    data: {
      object: {
        id: options.sessionId ?? stripeId('cs_test'),
        object: 'checkout.session',
        client_reference_id: options.clientReferenceId ?? null,
        customer: options.customerId ?? null,
        customer_details: options.email === null ? null : { email: options.email },
        metadata: { planId: options.planId ?? '1-week' },
        amount_total: options.amountTotal ?? 999,
        currency: options.currency ?? 'usd',
        payment_status: options.paymentStatus ?? 'paid',
        payment_intent:
          options.paymentIntentId === undefined ? newPaymentIntentId() : options.paymentIntentId,
      },
    },
  };
}

/** `charge.refunded` for a payment: `amountRefunded` of `amount` refunded so far. */
export function chargeRefundedEvent(options: {
  paymentIntentId: string;
  amount?: number;
  amountRefunded?: number;
}): StripeTestEvent {
  const amount = options.amount ?? 999;
  const amountRefunded = options.amountRefunded ?? amount;
  return {
    id: stripeId('evt'),
    object: 'event',
    type: 'charge.refunded',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: stripeId('ch'),
        object: 'charge',
        amount,
        amount_refunded: amountRefunded,
        refunded: amountRefunded >= amount,
        currency: 'usd',
        payment_intent: options.paymentIntentId,
      },
    },
  };
}

/**
 * `charge.refund.updated`: a refund of `amount` (all of 999 unless told) whose status changed,
 * to `failed` when the bank returned the money to us instead of to the card holder.
 */
export function refundUpdatedEvent(options: {
  paymentIntentId: string;
  chargeId: string;
  status: 'succeeded' | 'pending' | 'failed' | 'canceled';
  amount?: number;
  refundId?: string;
}): StripeTestEvent {
  return {
    id: stripeId('evt'),
    object: 'event',
    type: 'charge.refund.updated',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: options.refundId ?? stripeId('re'),
        object: 'refund',
        amount: options.amount ?? 999,
        charge: options.chargeId,
        payment_intent: options.paymentIntentId,
        currency: 'usd',
        status: options.status,
        ...(options.status === 'failed' ? { failure_reason: 'expired_or_canceled_card' } : {}),
      },
    },
  };
}

/** `charge.dispute.created` (status needs_response) or `charge.dispute.closed` (won or lost). */
export function disputeEvent(options: {
  paymentIntentId: string;
  disputeId: string;
  status: 'needs_response' | 'won' | 'lost';
}): StripeTestEvent {
  const created = Math.floor(Date.now() / 1000);
  return {
    id: stripeId('evt'),
    object: 'event',
    type: options.status === 'needs_response' ? 'charge.dispute.created' : 'charge.dispute.closed',
    created,
    data: {
      object: {
        id: options.disputeId,
        object: 'dispute',
        amount: 999,
        currency: 'usd',
        charge: stripeId('ch'),
        payment_intent: options.paymentIntentId,
        reason: 'fraudulent',
        status: options.status,
        created,
      },
    },
  };
}

export function newDisputeId(): string {
  return stripeId('dp');
}

/** Delivers an event to the webhook as Stripe would: the exact bytes, signed. */
export function deliverStripeEvent(app: FastifyInstance, event: StripeTestEvent) {
  const payload = JSON.stringify(event);
  return app.inject({
    method: 'POST',
    url: '/api/payments/stripe/webhook',
    headers: {
      'content-type': 'application/json',
      'stripe-signature': stripe.webhooks.generateTestHeaderString({
        payload,
        secret: TEST_STRIPE_WEBHOOK_SECRET,
      }),
    },
    payload,
  });
}

/** Stripe's test card that pays. */
export const PAYING_CARD = '4242424242424242';

/**
 * Pays a checkout on the Stripe sandbox's hosted page, as the buyer would with `card`; its
 * answer (303 on to the success page when paid).
 */
export function payOnSandboxPage(paymentURL: string, card = PAYING_CARD): Promise<Response> {
  return fetch(`${paymentURL}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card, expiry: '12/34', cvc: '123' }).toString(),
    redirect: 'manual',
  });
}
