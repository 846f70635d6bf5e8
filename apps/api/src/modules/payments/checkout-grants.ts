// A paid Checkout Session becomes premium here, once: the plan's days on the ledger, with the
// purchase row and the event id, in one transaction; a buyer without an account gets one, with
// a generated password mailed once. A checkout that cannot be granted now is parked.
import type { Kysely, Transaction } from 'kysely';
import type Stripe from 'stripe';

import type { Database } from '../../db/schema';
import { isUniqueViolation } from '../../errors';
import { mailLocaleOf } from '../../mail/mail-locale';
import { accountCreatedByPurchaseEmail } from '../../mail/templates';
import { isAddressHeldForUndo } from '../auth';
import { ledger, purchasesRepo } from '../premium';
import { usersRepo } from '../users';
import { generatePassword } from './generated-password';
import { applyReversal } from './payment-reversals';
import * as repo from './repo';
import {
  checkoutFromEvent,
  type PaidCheckout,
  parkedCopy,
  type StripeEventOutcome,
  type StripeEventsDependencies,
} from './stripe-event-facts';

type Executor = Kysely<Database> | Transaction<Database>;
type Buyer = NonNullable<Awaited<ReturnType<typeof usersRepo.findUserById>>>;
type Plan = NonNullable<Awaited<ReturnType<typeof repo.findPlan>>>;

/** A password generated for a guest buyer, and its hash (made before the transaction). */
interface NewAccount {
  password: string;
  hash: string;
}

/** The account vanished or appeared between the check and the transaction: run again. */
class AccountNeededError extends Error {}

/**
 * Grants a paid checkout. Two grants racing to create the same account (the email in two cases,
 * say) collide on the unique email; the loser runs again and extends the winner's account.
 */
export async function grantCheckout(
  deps: StripeEventsDependencies,
  event: Stripe.Event,
  isReplay = false,
): Promise<StripeEventOutcome> {
  const checkout = checkoutFromEvent(event);
  for (let attempt = 0; ; attempt += 1) {
    // Hashing is slow: done before the transaction, and only when no account exists yet.
    const hasAccount = (await findBuyer(deps.db, checkout)) !== undefined;
    let newAccount: NewAccount | undefined;
    if (!hasAccount && checkout.isPaid && checkout.email) {
      const password = generatePassword();
      newAccount = { password, hash: await deps.hasher.hash(password) };
    }
    try {
      return await grantOnce(deps, { checkout, event, newAccount, isReplay });
    } catch (error) {
      const isRace = isUniqueViolation(error) || error instanceof AccountNeededError;
      if (!isRace || attempt >= 3) throw error;
    }
  }
}

/** The account that bought: the one checkout named, the customer's, or the email's. */
export async function findBuyer(executor: Executor, checkout: PaidCheckout) {
  if (checkout.accountId) {
    const account = await usersRepo.findUserById(executor, checkout.accountId);
    if (account) return account;
  }
  if (checkout.customerId) {
    const account = await usersRepo.findUserByStripeCustomer(executor, checkout.customerId);
    if (account) return account;
  }
  // A true guest: the email he typed (an account registered since checkout began gets it).
  return checkout.email ? usersRepo.findUserByEmail(executor, checkout.email) : undefined;
}

interface GrantAttempt {
  checkout: PaidCheckout;
  event: Stripe.Event;
  newAccount: NewAccount | undefined;
  isReplay: boolean;
}

function grantOnce(
  deps: StripeEventsDependencies,
  attempt: GrantAttempt,
): Promise<StripeEventOutcome> {
  const { checkout, event, isReplay } = attempt;
  // The pass counts from when it is granted here, not from Stripe's event: a delivery delayed
  // by an outage, or a parked checkout replayed weeks later, must not cost the buyer his days.
  const grantedAt = new Date();
  return deps.db.transaction().execute(async (transaction): Promise<StripeEventOutcome> => {
    // The event, the account, the purchase and the ledger commit together or not at all.
    const isNewEvent = await repo.recordStripeEvent(transaction, {
      id: checkout.eventId,
      type: checkout.eventType,
    });
    if (!isNewEvent && !isReplay) return { kind: 'duplicate-event' };
    if (!checkout.isPaid) return { kind: 'not-paid-yet' };
    // A paid checkout that cannot be granted now is kept, for an operator to replay.
    const park = async (reason: string): Promise<StripeEventOutcome> => {
      await repo.parkEvent(transaction, {
        eventId: event.id,
        type: event.type,
        payload: parkedCopy(event),
        reason,
      });
      return { kind: 'parked', reason };
    };
    // Days and plan always come from our own plan, never from the payment's metadata alone.
    if (!checkout.planId) return park('checkout without a plan');
    const plan = await repo.findPlan(transaction, checkout.planId);
    if (!plan) return park(`unknown plan ${checkout.planId}`);
    if (checkout.paymentIntentId) await repo.lockPayment(transaction, checkout.paymentIntentId);

    const buyer = await findOrCreateBuyer(transaction, checkout, attempt.newAccount);
    if (typeof buyer === 'string') return park(buyer);
    return grantToBuyer(deps, transaction, { ...attempt, plan, grantedAt, ...buyer });
  });
}

/**
 * The buyer's account, made for a guest when none exists; or why the checkout must be parked.
 */
async function findOrCreateBuyer(
  transaction: Transaction<Database>,
  checkout: PaidCheckout,
  newAccount: NewAccount | undefined,
): Promise<{ user: Buyer; createdAccount: boolean } | string> {
  const user = await findBuyer(transaction, checkout);
  if (user) return { user, createdAccount: false };
  if (!checkout.email) return 'no account named and no email';
  // Held for the account that moved away from it (a checkout started before the hold): an
  // account made here would stop the owner taking his address back (ADR 016). Kept for an
  // operator, who replays it once the hold has ended.
  if (await isAddressHeldForUndo(transaction, checkout.email)) {
    return 'the email is held for the undo of an email change';
  }
  if (!newAccount) throw new AccountNeededError();
  // Its password goes only to this address, so only the address's owner can use it.
  const created = await usersRepo.insertUser(transaction, {
    email: checkout.email,
    passwordHash: newAccount.hash,
    emailVerifiedAt: new Date(),
    // The language of the page he bought on: his "account created" mail goes out in it.
    ...(checkout.locale ? { locale: checkout.locale } : {}),
  });
  const createdUser = await usersRepo.findUserById(transaction, created.id);
  if (!createdUser) throw new AccountNeededError();
  return { user: createdUser, createdAccount: true };
}

interface Grant extends GrantAttempt {
  plan: Plan;
  grantedAt: Date;
  user: Buyer;
  createdAccount: boolean;
}

/** The purchase, its days on the ledger, and what follows from them, for a known buyer. */
async function grantToBuyer(
  deps: StripeEventsDependencies,
  transaction: Transaction<Database>,
  grant: Grant,
): Promise<StripeEventOutcome> {
  const { checkout, plan, user, grantedAt } = grant;
  const granted = await ledger.addPass(
    transaction,
    { userId: user.id, source: 'stripe', days: plan.days, reason: 'payment', grantedAt },
    (period) =>
      purchasesRepo.insertPurchase(transaction, {
        userId: user.id,
        planId: plan.id,
        planName: plan.name,
        provider: 'Stripe',
        providerPaymentId: checkout.sessionId,
        paymentIntentId: checkout.paymentIntentId,
        amountCents: checkout.amountCents,
        currency: checkout.currency,
        listedPriceCents: plan.priceCents,
        listedCurrency: plan.currency,
        days: plan.days,
        ...period,
      }),
  );
  if (grant.isReplay) await repo.markParkedEventReplayed(transaction, grant.event.id);
  if (!granted) return { kind: 'already-granted' };
  const { purchaseId, period } = granted;
  if (checkout.customerId)
    await usersRepo.setStripeCustomerIfMissing(transaction, user.id, checkout.customerId);
  // A refund or a lost dispute that came in before the grant did.
  if (checkout.paymentIntentId)
    await applyReversal(transaction, { id: purchaseId, userId: user.id }, checkout.paymentIntentId);
  if (grant.createdAccount && grant.newAccount) {
    await mailGeneratedPassword(deps, transaction, { user, plan, newAccount: grant.newAccount });
  }
  const mismatch = amountMismatch(deps, grant);
  return {
    kind: 'granted',
    userId: user.id,
    expiresAt: period.expiresAt,
    createdAccount: grant.createdAccount,
    ...(mismatch ? { mismatch } : {}),
  };
}

async function mailGeneratedPassword(
  deps: StripeEventsDependencies,
  transaction: Transaction<Database>,
  account: { user: Buyer; plan: Plan; newAccount: NewAccount },
): Promise<void> {
  const { user, plan, newAccount } = account;
  await deps.mail.enqueue(transaction, {
    to: user.email,
    userId: user.id,
    template: 'account-created-by-purchase',
    content: accountCreatedByPurchaseEmail({
      email: user.email,
      password: newAccount.password,
      signInUrl: `${deps.publicUrl}/auth/login`,
      planName: plan.name,
      locale: mailLocaleOf(user),
    }),
    // The only copy of the generated password: if it were dropped, the buyer could reach what
    // he paid for only through a reset.
    neverGiveUp: true,
  });
}

/**
 * A payment that differs from the plan's price is granted per the plan all the same (the buyer
 * paid what our checkout asked, or what a coupon we issued left): an operator must see that a
 * price and Stripe disagree.
 */
function amountMismatch(deps: StripeEventsDependencies, grant: Grant) {
  const { checkout, plan, event } = grant;
  if (checkout.amountCents === plan.priceCents && checkout.currency === plan.currency) {
    return undefined;
  }
  deps.log.error(
    {
      eventId: event.id,
      sessionId: checkout.sessionId,
      paid: `${checkout.amountCents} ${checkout.currency}`,
      listed: `${plan.priceCents} ${plan.currency}`,
    },
    `stripe: paid ${checkout.amountCents} ${checkout.currency} where the plan lists ${plan.priceCents} ${plan.currency}`,
  );
  return {
    paid: { amountCents: checkout.amountCents, currency: checkout.currency },
    listed: { amountCents: plan.priceCents, currency: plan.currency },
  };
}
