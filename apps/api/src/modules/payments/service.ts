// The rules of buying premium: plans from the database, and granting a paid Stripe Checkout Session
// exactly once, whatever the number, order or concurrency of the events that announce it.
import { randomUUID } from 'node:crypto';

import type { CheckoutSession, Plan, SubscriptionItem } from '@kegel/contract';
import type { Kysely } from 'kysely';
import Stripe from 'stripe';

import type { Database } from '../../db/schema';
import { AppError, isUniqueViolation, SESSION_ENDED_MESSAGE } from '../../errors';
import type { Mailer } from '../../mail/outbox';
import { accountCreatedByPurchaseEmail } from '../../mail/templates';
import type { PasswordHasher } from '../../security/password-hasher';
import { generatePassword } from './generated-password';
import * as usersRepo from '../users/repo';
import * as repo from './repo';

export interface PaidCheckout {
  eventId: string;
  eventType: string;
  sessionId: string;
  email: string;
  planId: string;
  amountCents: number;
  currency: string;
  isPaid: boolean;
  /** The Stripe customer the payment belongs to, kept on the account for the portal. */
  customerId?: string | null;
}

export type GrantOutcome =
  | { kind: 'granted'; userId: string; expiresAt: Date; createdAccount: boolean }
  | { kind: 'duplicate-event' }
  | { kind: 'already-granted' }
  | { kind: 'not-paid-yet' }
  | { kind: 'unknown-plan' };

export interface PaymentsServiceDependencies {
  db: Kysely<Database>;
  hasher: PasswordHasher;
  mail: Mailer;
  publicUrl: string;
  stripe: Stripe;
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;

export function createPaymentsService(deps: PaymentsServiceDependencies) {
  const { db, hasher } = deps;

  async function grantOnce(
    checkout: PaidCheckout,
    newAccount: { password: string; hash: string } | undefined,
  ): Promise<GrantOutcome> {
    return db.transaction().execute(async (transaction): Promise<GrantOutcome> => {
      // The event, the account, the purchase and the new end date commit together or not at all.
      if (
        !(await repo.recordStripeEvent(transaction, {
          id: checkout.eventId,
          type: checkout.eventType,
        }))
      ) {
        return { kind: 'duplicate-event' };
      }
      if (!checkout.isPaid) return { kind: 'not-paid-yet' };
      // Days and plan always come from our own plan, never from the payment's metadata alone.
      const plan = await repo.findPlan(transaction, checkout.planId);
      if (!plan) return { kind: 'unknown-plan' };

      let user = await usersRepo.findUserByEmail(transaction, checkout.email);
      let createdAccount = false;
      if (!user) {
        if (!newAccount) throw new AccountNeededError();
        // Its password goes only to this address, so only the address's owner can use it.
        const emailVerifiedAt = new Date();
        const created = await usersRepo.insertUser(transaction, {
          email: checkout.email,
          passwordHash: newAccount.hash,
          emailVerifiedAt,
        });
        user = {
          ...created,
          passwordHash: newAccount.hash,
          subscriptionEndDate: null,
          emailVerifiedAt,
        };
        createdAccount = true;
      }

      const period = await usersRepo.lockPremiumPeriod(transaction, user.id, plan.days);
      const isNewPurchase = await repo.insertPurchase(transaction, {
        userId: user.id,
        planId: plan.id,
        planName: plan.name,
        provider: 'Stripe',
        providerPaymentId: checkout.sessionId,
        amountCents: checkout.amountCents,
        currency: checkout.currency,
        days: plan.days,
        startsAt: period.startsAt,
        expiresAt: period.expiresAt,
      });
      if (!isNewPurchase) return { kind: 'already-granted' };
      await usersRepo.setPremiumEnd(transaction, user.id, period.expiresAt);
      if (checkout.customerId)
        await usersRepo.setStripeCustomerIfMissing(transaction, user.id, checkout.customerId);

      if (createdAccount && newAccount) {
        await deps.mail.enqueue(transaction, {
          to: user.email,
          template: 'account-created-by-purchase',
          content: accountCreatedByPurchaseEmail({
            email: user.email,
            password: newAccount.password,
            signInUrl: `${deps.publicUrl}/auth/login`,
            planName: plan.name,
          }),
          // The only copy of the generated password: if it were dropped, the buyer could reach
          // what he paid for only through a reset.
          neverGiveUp: true,
        });
      }
      return { kind: 'granted', userId: user.id, expiresAt: period.expiresAt, createdAccount };
    });
  }

  /** One Stripe customer per account, created on first need (idempotent per account). */
  async function stripeCustomerFor(userId: string): Promise<string> {
    const user = await usersRepo.findStripeCustomer(db, userId);
    if (!user) throw new AppError(401, SESSION_ENDED_MESSAGE);
    if (user.stripeCustomerId) return user.stripeCustomerId;
    const customer = await deps.stripe.customers.create(
      { email: user.email, metadata: { userId } },
      { idempotencyKey: `customer-${userId}` },
    );
    await usersRepo.setStripeCustomerIfMissing(db, userId, customer.id);
    return (await usersRepo.findStripeCustomer(db, userId))?.stripeCustomerId ?? customer.id;
  }

  return {
    /**
     * A Stripe Checkout Session for a plan: amount and days from our plan, never the request.
     * A known email pays as its account's customer; a new one is created as a customer by Stripe.
     */
    async startCheckout(input: { planId: string; email: string }): Promise<string> {
      const plan = await repo.findPlan(db, input.planId);
      if (!plan) throw new AppError(400, 'Plan is required');
      const user = await usersRepo.findUserByEmail(db, input.email);
      const customer = user ? await stripeCustomerFor(user.id) : undefined;
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
          metadata: { planId: plan.id, email: input.email },
          // Stripe fills in {CHECKOUT_SESSION_ID} itself; it must stay unencoded.
          success_url: `${deps.publicUrl}/purchase/complete?${successQuery}&session={CHECKOUT_SESSION_ID}`,
          cancel_url: `${deps.publicUrl}/purchase`,
        },
        // A fresh key per request: the SDK's own network retries then never create two sessions.
        { idempotencyKey: `checkout-${randomUUID()}` },
      );
      if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
      return session.url;
    },

    /** What /purchase/complete shows: no personal data. */
    async describeCheckout(sessionId: string): Promise<CheckoutSession> {
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
    },

    /** The caller's own billing portal. */
    async openCustomerPortal(userId: string): Promise<string> {
      const customer = await stripeCustomerFor(userId);
      const portal = await deps.stripe.billingPortal.sessions.create(
        { customer, return_url: `${deps.publicUrl}/dashboard/history` },
        { idempotencyKey: `portal-${randomUUID()}` },
      );
      return portal.url;
    },

    async listPlans(): Promise<Plan[]> {
      const plans = await repo.listPlans(db);
      return plans.map((plan) => ({
        id: plan.id,
        name: plan.name,
        days: plan.days,
        price: plan.priceCents / 100,
      }));
    },

    async listPurchases(userId: string): Promise<SubscriptionItem[]> {
      const purchases = await repo.listPurchasesOfUser(db, userId);
      return purchases.map((purchase) => ({
        name: purchase.planName,
        provider: purchase.provider,
        createdAt: purchase.createdAt.toISOString(),
        expiresAt: purchase.expiresAt.toISOString(),
      }));
    },

    /**
     * Grants a paid checkout: premium end = max(now, current end) + plan days, with the
     * purchase row and the event id, in one transaction. An email without an account gets one,
     * with a generated password mailed once. Two grants racing to create the same account (the
     * email in two cases, say) collide on the unique email; the loser runs again and extends the
     * winner's account.
     */
    async grantCheckout(checkout: PaidCheckout): Promise<GrantOutcome> {
      for (let attempt = 0; ; attempt += 1) {
        // Hashing is slow: done before the transaction, and only when no account exists yet.
        const hasAccount = (await usersRepo.findUserByEmail(db, checkout.email)) !== undefined;
        let newAccount: { password: string; hash: string } | undefined;
        if (!hasAccount && checkout.isPaid) {
          const password = generatePassword();
          newAccount = { password, hash: await hasher.hash(password) };
        }
        try {
          return await grantOnce(checkout, newAccount);
        } catch (error) {
          const isRace = isUniqueViolation(error) || error instanceof AccountNeededError;
          if (!isRace || attempt >= 3) throw error;
        }
      }
    },
  };
}

/** The account vanished or appeared between the check and the transaction: run again. */
class AccountNeededError extends Error {}
