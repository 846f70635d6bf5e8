// Buying premium on the web, put together: plans from the database, Stripe Checkout Sessions that
// name their buyer (checkout-sessions.ts), the account's Stripe customer (account-customers.ts),
// the customer portal and the member's purchases. What Stripe's events do once paid is in
// stripe-events.ts.
import { randomUUID } from 'node:crypto';

import { fromMinorUnits, type Plan, type PurchaseItem } from '@kegel/contract';
import type { Locale, PageLocale } from '@kegel/contract/i18n';
import type { Kysely } from 'kysely';

import type { StripeClient } from '../../plugins/payments';
import type { Database } from '../../db/schema';
import { AppError, SESSION_ENDED_MESSAGE } from '../../errors';
import type { Caller } from '../../security/client-address';
import type { RateLimiter, RateLimitRule } from '../../security/rate-limiter';
import { currentCustomerFor, syncCustomerEmail } from './account-customers';
import { describeCheckout, startCheckout } from './checkout-sessions';
import { listPurchaseItems } from './purchase-items';
import * as repo from './repo';
import type { OperatorLog } from './stripe-events';
import { reportingStripeFailures } from './stripe-failures';

export interface PaymentsServiceDependencies {
  db: Kysely<Database>;
  log: OperatorLog;
  publicUrl: string;
  stripe: StripeClient;
  rateLimiter: RateLimiter;
  /**
   * Checkout starts per client address; per email from anyone but the email's own member, signed
   * in; and per account for that member, whose budget strangers cannot spend.
   */
  checkoutLimits: {
    perAddress: RateLimitRule;
    perEmail: RateLimitRule;
    perOwnAccount: RateLimitRule;
  };
  /** Checkout lookups per client address: each one asks Stripe. */
  lookupsPerAddress: RateLimitRule;
  /**
   * A customer made for an account deleted meanwhile: recorded and deleted as the deletion's own
   * would be (account-deletion/stripe-customers.ts).
   */
  forgetCustomer(account: { userId: string; stripeCustomerId: string }): Promise<void>;
  /**
   * Whether the account signed in from the caller's network lately (the auth service's record):
   * a buyer there, signed in or not, buys from his account's own budget.
   */
  isOwnersNetwork(
    account: { id: string; credentialVersion: number },
    caller: Caller,
  ): Promise<boolean>;
}

export const checkoutMessages = {
  tooManyFromAddress: 'Too many payment attempts from your network. Please try again later.',
  tooManyForEmail: 'Too many payment attempts for this email. Please try again later.',
  tooManyLookupsFromAddress: 'Too many payment lookups from your network. Please try again later.',
  addressHeld:
    'This email cannot buy without an account right now: the account that used it moved away recently and may take it back. Sign in to your account to buy, or use another email.',
};

export type PaymentsService = ReturnType<typeof createPaymentsService>;

export function createPaymentsService(deps: PaymentsServiceDependencies) {
  const { db } = deps;

  // What Stripe refuses or fails reaches the caller as our own 502 or 503 (stripe-failures.ts).
  return {
    /**
     * A Stripe Checkout Session for a plan: amount and days from our plan, never the request.
     * A known email pays as its account's customer; a new one is created as a customer by Stripe.
     */
    startCheckout: reportingStripeFailures(
      (input: { planId: string; email: string }, caller: Caller, signedInUserId?: string) =>
        startCheckout(deps, input, caller, signedInUserId),
    ),
    /** What /purchase/complete shows: no personal data. */
    describeCheckout: reportingStripeFailures((sessionId: string, caller: Caller) =>
      describeCheckout(deps, sessionId, caller),
    ),

    /** The caller's own billing portal. */
    openCustomerPortal: reportingStripeFailures(async function openCustomerPortal(
      userId: string,
      locale: Locale,
    ): Promise<string> {
      const customer = await currentCustomerFor(deps, userId);
      if (!customer) throw new AppError(401, SESSION_ENDED_MESSAGE);
      const portal = await (
        await deps.stripe()
      ).billingPortal.sessions.create(
        { customer, return_url: `${deps.publicUrl}/dashboard/history`, locale },
        { idempotencyKey: `portal-${randomUUID()}` },
      );
      return portal.url;
    }),

    async listPlans(): Promise<Plan[]> {
      const plans = await repo.listPlans(db);
      return plans.map((plan) => ({
        id: plan.id,
        name: plan.name,
        days: plan.days,
        price: fromMinorUnits(plan.priceCents, plan.currency),
      }));
    },

    listPurchases: (userId: string, locale: PageLocale): Promise<PurchaseItem[]> =>
      listPurchaseItems(db, userId, locale),

    /** After an email change (and before each checkout and portal visit, in case that failed). */
    syncCustomerEmail: (userId: string) => syncCustomerEmail(deps, userId),
  };
}
