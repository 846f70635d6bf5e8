// What Stripe's webhook events do, each exactly once whatever the number, order or concurrency of
// their deliveries: a paid Checkout Session grants its plan's days to the buyer's account
// (checkout-grants.ts), a full refund or a lost dispute takes those days out again, and a partial
// refund or an opened dispute is recorded, and a refund that failed gives them back
// (payment-reversals.ts).
import type Stripe from 'stripe';

import { grantCheckout } from './checkout-grants';
import { handleDispute, handleRefund, handleRefundUpdate } from './payment-reversals';
import * as repo from './repo';
import {
  HANDLED_STRIPE_EVENTS,
  type StripeEventOutcome,
  type StripeEventsDependencies,
} from './stripe-event-facts';
import { reportingStripeFailures } from './stripe-failures';

export {
  checkoutFromEvent,
  HANDLED_STRIPE_EVENTS,
  type AmountMismatch,
  type OperatorLog,
  type PaidCheckout,
  type StripeEventOutcome,
  type StripeEventsDependencies,
} from './stripe-event-facts';

export type StripeEventHandler = ReturnType<typeof createStripeEventHandler>;

export function createStripeEventHandler(deps: StripeEventsDependencies) {
  return {
    /**
     * Handles one verified event; throws on failure (the webhook answers a 5xx, and Stripe
     * delivers the event again later), Stripe's own failures as ProviderErrors.
     */
    handleEvent: reportingStripeFailures(async function handleEvent(
      event: Stripe.Event,
    ): Promise<StripeEventOutcome> {
      if (!HANDLED_STRIPE_EVENTS.has(event.type)) return { kind: 'ignored-type' };
      if (event.type.startsWith('checkout.session.')) return grantCheckout(deps, event);
      if (event.type === 'charge.refunded') return handleRefund(deps, event);
      if (event.type === 'charge.refund.updated') return handleRefundUpdate(deps, event);
      return handleDispute(deps, event);
    }),

    /** Grants a parked checkout again (its plan exists now): `npm run payments:replay`. */
    async replayParkedEvent(eventId: string): Promise<StripeEventOutcome | undefined> {
      const parked = await repo.findParkedEvent(deps.db, eventId);
      if (!parked) return undefined;
      return grantCheckout(deps, JSON.parse(parked.payload) as Stripe.Event, true);
    },
  };
}
