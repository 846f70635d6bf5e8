import type { Kysely } from 'kysely';

import type { Plan, SubscriptionItem } from '@kegel/contract';

import type { Database } from '../../db/schema';
import { isUniqueViolation } from '../../errors';
import { enqueueEmail } from '../../mail/outbox';
import { accountCreatedByPurchaseEmail } from '../../mail/templates';
import type { PasswordHasher } from '../../security/password-hasher';
import * as authRepo from '../auth/repo';
import { generatePassword } from './generated-password';
import * as repo from './repo';

/**
 * The rules of buying premium (issue #5): plans from the database, and granting a paid Stripe
 * Checkout Session exactly once, whatever the number, order or concurrency of the events that
 * announce it.
 */
export interface PaidCheckout {
  eventId: string;
  eventType: string;
  sessionId: string;
  email: string;
  planId: string;
  amountCents: number;
  currency: string;
  isPaid: boolean;
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
  mail: { encryptionKey: Buffer; wake(): void };
  publicUrl: string;
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

      let user = await authRepo.findUserByEmail(transaction, checkout.email);
      let createdAccount = false;
      if (!user) {
        if (!newAccount) throw new AccountNeededError();
        const created = await authRepo.insertUser(transaction, {
          email: checkout.email,
          passwordHash: newAccount.hash,
        });
        user = { ...created, passwordHash: newAccount.hash, subscriptionEndDate: null };
        createdAccount = true;
      }

      const period = await repo.lockPremiumPeriod(transaction, user.id, plan.days);
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
      await repo.setPremiumEnd(transaction, user.id, period.expiresAt);

      if (createdAccount && newAccount) {
        await enqueueEmail(transaction, deps.mail.encryptionKey, {
          to: user.email,
          template: 'account-created-by-purchase',
          content: accountCreatedByPurchaseEmail({
            email: user.email,
            password: newAccount.password,
            signInUrl: `${deps.publicUrl}/auth/login`,
            planName: plan.name,
          }),
        });
      }
      return { kind: 'granted', userId: user.id, expiresAt: period.expiresAt, createdAccount };
    });
  }

  return {
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
        const hasAccount = (await authRepo.findUserByEmail(db, checkout.email)) !== undefined;
        let newAccount: { password: string; hash: string } | undefined;
        if (!hasAccount && checkout.isPaid) {
          const password = generatePassword();
          newAccount = { password, hash: await hasher.hash(password) };
        }
        try {
          const outcome = await grantOnce(checkout, newAccount);
          if (outcome.kind === 'granted' && outcome.createdAccount) deps.mail.wake();
          return outcome;
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
