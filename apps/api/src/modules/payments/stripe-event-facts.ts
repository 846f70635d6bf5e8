// The facts of Stripe's webhook events, read once: which events are handled, what a checkout
// event says, what each handling ended in, and what the handlers need.
import { isLocale, type Locale } from '@kegel/contract/i18n';
import { HANDLED_STRIPE_EVENT_TYPES } from '@kegel/contract';
import type { Kysely } from 'kysely';
import type Stripe from 'stripe';

import type { StripeClient } from '../../plugins/payments';
import { isUuid } from '../../db/ids';
import type { Database } from '../../db/schema';
import type { Mailer } from '../../mail/outbox';
import type { PasswordHasher } from '../../security/password-hasher';

/**
 * The events the webhook endpoint is subscribed to (docs/payments.md: "Stripe webhook events"),
 * listed in the contract, which the API document names them from.
 */
export const HANDLED_STRIPE_EVENTS: ReadonlySet<string> = new Set(HANDLED_STRIPE_EVENT_TYPES);

export interface PaidCheckout {
  eventId: string;
  eventType: string;
  sessionId: string;
  /** Set at checkout start for a known account: the buyer, whatever email Stripe shows. */
  accountId: string | null;
  /** The Stripe customer who paid; an account it belongs to is the buyer. */
  customerId: string | null;
  /** The payer's email: whom to grant to only when neither of the above names an account. */
  email: string | null;
  /** Null when the session carries none: kept (parked), not granted. */
  planId: string | null;
  amountCents: number;
  currency: string;
  isPaid: boolean;
  paymentIntentId: string | null;
  /** The language of the page the checkout began on (metadata `locale`): a new account's. */
  locale: Locale | null;
}

/** The amount Stripe charged differs from the plan's price (a changed price, a coupon). */
export interface AmountMismatch {
  paid: { amountCents: number; currency: string };
  listed: { amountCents: number; currency: string };
}

export type StripeEventOutcome =
  | {
      kind: 'granted';
      userId: string;
      expiresAt: Date;
      createdAccount: boolean;
      mismatch?: AmountMismatch;
    }
  | { kind: 'duplicate-event' }
  | { kind: 'already-granted' }
  | { kind: 'not-paid-yet' }
  /** Kept in stripe_parked_events until `npm run payments:replay -- <event id>`. */
  | { kind: 'parked'; reason: string }
  | { kind: 'incomplete'; reason: string }
  | { kind: 'ignored-type' }
  | { kind: 'refund-recorded'; revoked: boolean }
  | { kind: 'dispute-recorded'; revoked: boolean }
  /** A refund or dispute of a payment no purchase here is known for (yet): kept for when it is. */
  | { kind: 'unknown-payment' };

/** The part of a logger (pino's, the server's) an operator reads. */
export interface OperatorLog {
  error(details: object, message: string): void;
}

export interface StripeEventsDependencies {
  db: Kysely<Database>;
  hasher: PasswordHasher;
  mail: Mailer;
  publicUrl: string;
  stripe: StripeClient;
  /** Where what an operator must act on is written (the server's log, or the replay's). */
  log: OperatorLog;
}

export function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : value.id;
}

/** When Stripe made the event (a refund, a dispute), never later than now. */
export function eventTime(event: Stripe.Event): Date {
  const now = Date.now();
  return typeof event.created === 'number'
    ? new Date(Math.min(event.created * 1000, now))
    : new Date(now);
}

/**
 * What a parked checkout keeps of its event: what a grant reads, and of the payer's details only
 * his email (not his name, address or phone).
 */
export function parkedCopy(event: Stripe.Event): unknown {
  const session = event.data.object as Stripe.Checkout.Session;
  return {
    id: event.id,
    object: 'event',
    type: event.type,
    created: event.created,
    data: {
      object: {
        id: session.id,
        object: 'checkout.session',
        client_reference_id: session.client_reference_id ?? null,
        customer: idOf(session.customer),
        customer_email: session.customer_email ?? null,
        customer_details: { email: session.customer_details?.email ?? null },
        metadata: session.metadata ?? {},
        amount_total: session.amount_total,
        currency: session.currency,
        payment_status: session.payment_status,
        payment_intent: idOf(session.payment_intent),
      },
    },
  };
}

/** The facts of a checkout event. */
export function checkoutFromEvent(event: Stripe.Event): PaidCheckout {
  const session = event.data.object as Stripe.Checkout.Session;
  const planId = session.metadata?.planId ?? null;
  const accountId = session.client_reference_id ?? session.metadata?.userId ?? null;
  const customerId = idOf(session.customer);
  const email =
    session.customer_details?.email ?? session.customer_email ?? session.metadata?.email ?? null;
  return {
    eventId: event.id,
    eventType: event.type,
    sessionId: session.id,
    accountId: accountId && isUuid(accountId) ? accountId : null,
    customerId,
    email,
    planId,
    amountCents: session.amount_total ?? 0,
    currency: session.currency ?? 'usd',
    isPaid:
      event.type !== 'checkout.session.async_payment_failed' && session.payment_status === 'paid',
    paymentIntentId: idOf(session.payment_intent),
    locale: isLocale(session.metadata?.locale) ? session.metadata.locale : null,
  };
}
