// The rules of buying premium on the web: plans from the database, Stripe Checkout Sessions that
// name their buyer, the customer portal and the member's purchases. What Stripe's events do once
// paid is in stripe-events.ts.
import { randomUUID } from 'node:crypto';

import type { CheckoutSession, Plan, PurchaseItem } from '@kegel/contract';
import type { Kysely } from 'kysely';
import Stripe from 'stripe';

import type { Database } from '../../db/schema';
import { AppError, SESSION_ENDED_MESSAGE } from '../../errors';
import type { Caller } from '../../security/client-address';
import type { RateLimiter, RateLimitRule } from '../../security/rate-limiter';
import { isAddressHeldForUndo } from '../auth';
import { purchasesRepo } from '../premium';
import { usersRepo } from '../users';
import * as repo from './repo';
import type { OperatorLog } from './stripe-events';
import { reportingStripeFailures } from './stripe-failures';

export interface PaymentsServiceDependencies {
  db: Kysely<Database>;
  log: OperatorLog;
  publicUrl: string;
  stripe: Stripe;
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
   * Whether the account signed in from the caller's network lately (the auth service's record):
   * a buyer there, signed in or not, buys from his account's own budget.
   */
  /**
   * A customer made for an account deleted meanwhile: recorded and deleted as the deletion's own
   * would be (account-deletion/stripe-customers.ts).
   */
  forgetCustomer(account: { userId: string; stripeCustomerId: string }): Promise<void>;
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

  /**
   * The account's Stripe customer for a checkout or a portal visit, as Stripe knows it now: made
   * on first need, given the account's current email (Stripe's pages show it, read-only), and
   * replaced by a new one when Stripe reports it deleted, since Stripe refuses a deleted customer
   * everywhere (deleted in its dashboard, or the customer of an account deleted while its
   * checkout was open, which the payment then brought back). Undefined when the account is gone.
   */
  async function currentCustomerFor(userId: string): Promise<string | undefined> {
    const user = await usersRepo.findStripeCustomer(db, userId);
    if (!user) return undefined;
    if (!user.stripeCustomerId) return adoptNewCustomer(userId, user.email);
    const customer = await readCustomer(user.stripeCustomerId, userId);
    if (customer === 'deleted') return adoptNewCustomer(userId, user.email, user.stripeCustomerId);
    if (customer && customer.email !== user.email) {
      await tryUpdateCustomerEmail(userId, user.stripeCustomerId, user.email);
    }
    return user.stripeCustomerId;
  }

  /**
   * A new Stripe customer for the account, in place of `replacing` (or of none): one however many
   * calls make it at once (idempotent per account and per customer replaced). Undefined when the
   * account is gone, deleted before or while Stripe made the customer: that customer is then
   * deleted too, since the deletion, which saw none, could not.
   */
  async function adoptNewCustomer(
    userId: string,
    email: string,
    replacing?: string,
  ): Promise<string | undefined> {
    const customer = await deps.stripe.customers.create(
      { email, metadata: { userId } },
      {
        idempotencyKey: replacing
          ? `customer-${userId}-replacing-${replacing}`
          : `customer-${userId}`,
      },
    );
    // Waits for a deletion in progress (it holds the member's row), then finds no row to set.
    if (replacing) await usersRepo.replaceStripeCustomer(db, userId, replacing, customer.id);
    else await usersRepo.setStripeCustomerIfMissing(db, userId, customer.id);
    const stored = await usersRepo.findStripeCustomer(db, userId);
    if (!stored) {
      await deps.forgetCustomer({ userId, stripeCustomerId: customer.id });
      return undefined;
    }
    return stored.stripeCustomerId ?? customer.id;
  }

  /**
   * The customer as Stripe has it now: 'deleted' when Stripe says so (a retrieve still answers a
   * deleted customer, with `deleted: true`) or knows no such customer; undefined when Stripe could
   * not be asked (logged: the call goes on with what it has).
   */
  async function readCustomer(
    customerId: string,
    userId: string,
  ): Promise<Stripe.Customer | 'deleted' | undefined> {
    try {
      const customer = await deps.stripe.customers.retrieve(customerId);
      return customer.deleted ? 'deleted' : customer;
    } catch (error) {
      if ((error as { code?: string }).code === 'resource_missing') return 'deleted';
      deps.log.error({ err: error, userId }, 'stripe: customer not read');
      return undefined;
    }
  }

  /** An email update that fails must not keep the member from paying or from his portal. */
  async function tryUpdateCustomerEmail(
    userId: string,
    customerId: string,
    email: string,
  ): Promise<void> {
    try {
      await deps.stripe.customers.update(customerId, { email });
    } catch (error) {
      deps.log.error({ err: error, userId }, 'stripe: customer email not updated');
    }
  }

  /**
   * Gives the account's Stripe customer the account's current email if Stripe has another: read
   * from Stripe each time, so updates that crossed (a change, then its undoing) are put right. A
   * deleted customer is left as it is: the next checkout or portal visit replaces it. Never
   * throws: it runs after the change, which stands whatever Stripe answers.
   */
  async function syncCustomerEmail(userId: string): Promise<void> {
    try {
      const user = await usersRepo.findStripeCustomer(db, userId);
      if (!user?.stripeCustomerId) return;
      const customer = await readCustomer(user.stripeCustomerId, userId);
      if (!customer || customer === 'deleted' || customer.email === user.email) return;
      await tryUpdateCustomerEmail(userId, user.stripeCustomerId, user.email);
    } catch (error) {
      deps.log.error({ err: error, userId }, 'stripe: customer email not updated');
    }
  }

  // What Stripe refuses or fails reaches the caller as our own 502 or 503 (stripe-failures.ts).
  return {
    /**
     * A Stripe Checkout Session for a plan: amount and days from our plan, never the request.
     * A known email pays as its account's customer; a new one is created as a customer by Stripe.
     */
    startCheckout: reportingStripeFailures(async function startCheckout(
      input: { planId: string; email: string },
      caller: Caller,
      signedInUserId?: string,
    ): Promise<string> {
      // Each start is a call to Stripe's API on our account, so a flood is refused before it.
      const { perAddress, perEmail, perOwnAccount } = deps.checkoutLimits;
      const fromAddress = await deps.rateLimiter.hit(perAddress, caller.clientAddress);
      if (!fromAddress.isAllowed) {
        throw new AppError(429, checkoutMessages.tooManyFromAddress, fromAddress.retryAfterSeconds);
      }
      const account = await usersRepo.findUserByEmail(db, input.email);
      // Strangers, however many addresses they use, share one budget for an email; the member
      // signed in to its account, or on a network he signs in from, buys from a budget of his
      // own, which they cannot use up. Each is bounded, so one email never costs more Stripe
      // calls than both (docs/security.md).
      const isOwnAccount =
        account !== undefined &&
        (account.id === signedInUserId || (await deps.isOwnersNetwork(account, caller)));
      const forEmail = isOwnAccount
        ? await deps.rateLimiter.hit(perOwnAccount, account.id)
        : await deps.rateLimiter.hit(perEmail, input.email.toLowerCase());
      if (!forEmail.isAllowed) {
        throw new AppError(429, checkoutMessages.tooManyForEmail, forEmail.retryAfterSeconds);
      }
      // A guest purchase would make an account at an address held for the account that moved away
      // from it, and that account could no longer be given it back (ADR 016).
      if (!account && (await isAddressHeldForUndo(db, input.email))) {
        throw new AppError(409, checkoutMessages.addressHeld);
      }
      const plan = await repo.findPlan(db, input.planId);
      if (!plan) throw new AppError(400, 'Plan is required');
      const customer = account ? await currentCustomerFor(account.id) : undefined;
      // An account deleted meanwhile: the email buys as a newcomer's would.
      const user = customer ? account : undefined;
      const successQuery = `registered=${user ? 'true' : 'false'}&email=${encodeURIComponent(input.email)}`;
      const session = await deps.stripe.checkout.sessions.create(
        {
          mode: 'payment',
          // Cards only (wallets such as Apple Pay pay by card too): the receipt says "Card".
          allowed_payment_method_types: ['card'],
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: plan.currency,
                unit_amount: plan.priceCents,
                product_data: { name: `Kegel Coach Premium — ${plan.name}` },
              },
            },
          ],
          ...(customer
            ? { customer }
            : { customer_email: input.email, customer_creation: 'always' as const }),
          // The buyer, named by something an email change cannot move: the account itself.
          ...(user ? { client_reference_id: user.id } : {}),
          metadata: { planId: plan.id, email: input.email, ...(user ? { userId: user.id } : {}) },
          // Stripe fills in {CHECKOUT_SESSION_ID} itself; it must stay unencoded.
          success_url: `${deps.publicUrl}/purchase/complete?${successQuery}&session={CHECKOUT_SESSION_ID}`,
          cancel_url: `${deps.publicUrl}/purchase`,
        },
        // A fresh key per request: the SDK's own network retries then never create two sessions.
        { idempotencyKey: `checkout-${randomUUID()}` },
      );
      if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
      return session.url;
    }),

    /** What /purchase/complete shows: no personal data. */
    describeCheckout: reportingStripeFailures(async function describeCheckout(
      sessionId: string,
      caller: Caller,
    ): Promise<CheckoutSession> {
      // Anyone may ask, and each lookup is a call to Stripe's API on our account.
      const lookups = await deps.rateLimiter.hit(deps.lookupsPerAddress, caller.clientAddress);
      if (!lookups.isAllowed) {
        throw new AppError(
          429,
          checkoutMessages.tooManyLookupsFromAddress,
          lookups.retryAfterSeconds,
        );
      }
      let session: Stripe.Checkout.Session;
      try {
        session = await deps.stripe.checkout.sessions.retrieve(sessionId);
      } catch (error) {
        if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) {
          throw new AppError(404, 'Payment not found');
        }
        throw error;
      }
      const plan = session.metadata?.planId
        ? await repo.findPlan(db, session.metadata.planId)
        : undefined;
      if (!plan) throw new AppError(404, 'Payment not found');
      const purchase = await repo.findPurchaseByPayment(db, session.id);
      return {
        id: session.id,
        durationDays: purchase?.days ?? plan.days,
        beginsAt: (purchase?.startsAt ?? new Date(session.created * 1000)).toISOString(),
        providerType: 'Stripe',
        price: (session.amount_total ?? plan.priceCents) / 100,
      };
    }),

    /** The caller's own billing portal. */
    openCustomerPortal: reportingStripeFailures(async function openCustomerPortal(
      userId: string,
    ): Promise<string> {
      const customer = await currentCustomerFor(userId);
      if (!customer) throw new AppError(401, SESSION_ENDED_MESSAGE);
      const portal = await deps.stripe.billingPortal.sessions.create(
        { customer, return_url: `${deps.publicUrl}/dashboard/history` },
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
        price: plan.priceCents / 100,
      }));
    },

    async listPurchases(userId: string): Promise<PurchaseItem[]> {
      const purchases = await purchasesRepo.listPurchasesOfUser(db, userId);
      return purchases.map((purchase) => ({
        name: purchase.planName,
        provider: purchase.provider,
        createdAt: purchase.createdAt.toISOString(),
        expiresAt: purchase.expiresAt.toISOString(),
        ...(purchase.revokedAt ? { refundedAt: purchase.revokedAt.toISOString() } : {}),
      }));
    },

    /** After an email change (and before each checkout and portal visit, in case that failed). */
    syncCustomerEmail,
  };
}
