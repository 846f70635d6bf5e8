// What Stripe's webhook events do, each exactly once whatever the number, order or concurrency of
// their deliveries: a paid Checkout Session grants its plan's days to the buyer's account, a full
// refund or a lost dispute takes those days out again (ledger.ts shifts the later passes back),
// and a partial refund or an opened dispute is recorded.
import type { Kysely, Transaction } from 'kysely';
import type Stripe from 'stripe';

import type { Database } from '../../db/schema';
import { isUuid } from '../../db/ids';
import { isUniqueViolation } from '../../errors';
import type { Mailer } from '../../mail/outbox';
import { accountCreatedByPurchaseEmail } from '../../mail/templates';
import type { PasswordHasher } from '../../security/password-hasher';
import { isAddressHeldForUndo } from '../auth';
import { ledger, purchasesRepo } from '../premium';
import { usersRepo } from '../users';
import { generatePassword } from './generated-password';
import * as repo from './repo';
import { reportingStripeFailures } from './stripe-failures';

/** The events the webhook endpoint is subscribed to (docs/payments.md: "Stripe webhook events"). */
export const HANDLED_STRIPE_EVENTS = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'charge.refunded',
  'charge.dispute.created',
  'charge.dispute.closed',
]);

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
  stripe: Stripe;
  /** Where what an operator must act on is written (the server's log, or the replay's). */
  log: OperatorLog;
}

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : value.id;
}

/** When Stripe made the event (a refund, a dispute), never later than now. */
function eventTime(event: Stripe.Event): Date {
  const now = Date.now();
  return typeof event.created === 'number'
    ? new Date(Math.min(event.created * 1000, now))
    : new Date(now);
}

/**
 * What a parked checkout keeps of its event: what a grant reads, and of the payer's details only
 * his email (not his name, address or phone).
 */
function parkedCopy(event: Stripe.Event): unknown {
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
  };
}

export type StripeEventHandler = ReturnType<typeof createStripeEventHandler>;

export function createStripeEventHandler(deps: StripeEventsDependencies) {
  const { db, hasher } = deps;

  /** The account that bought: the one checkout named, the customer's, or the email's. */
  async function findBuyer(
    executor: Kysely<Database> | Transaction<Database>,
    checkout: PaidCheckout,
  ) {
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

  /** Takes the purchase's days out when its payment was refunded in full or lost a dispute. */
  async function applyReversal(
    transaction: Transaction<Database>,
    purchase: { id: string; userId: string | null },
    paymentIntentId: string,
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
    // Neither (any more): a dispute lost and then won on appeal gives the days back.
    await ledger.reinstatePurchase(transaction, {
      userId: purchase.userId,
      purchaseId: purchase.id,
      reason: 'dispute won',
      at: new Date(),
    });
    return false;
  }

  async function grantOnce(
    checkout: PaidCheckout,
    event: Stripe.Event,
    newAccount: { password: string; hash: string } | undefined,
    isReplay: boolean,
  ): Promise<StripeEventOutcome> {
    // The pass counts from when it is granted here, not from Stripe's event: a delivery delayed
    // by an outage, or a parked checkout replayed weeks later, must not cost the buyer his days.
    const grantedAt = new Date();
    return db.transaction().execute(async (transaction): Promise<StripeEventOutcome> => {
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

      let user = await findBuyer(transaction, checkout);
      let createdAccount = false;
      if (!user) {
        if (!checkout.email) return park('no account named and no email');
        // Held for the account that moved away from it (a checkout started before the hold):
        // an account made here would stop the owner taking his address back (ADR 016). Kept
        // for an operator, who replays it once the hold has ended.
        if (await isAddressHeldForUndo(transaction, checkout.email)) {
          return park('the email is held for the undo of an email change');
        }
        if (!newAccount) throw new AccountNeededError();
        // Its password goes only to this address, so only the address's owner can use it.
        const created = await usersRepo.insertUser(transaction, {
          email: checkout.email,
          passwordHash: newAccount.hash,
          emailVerifiedAt: new Date(),
        });
        user = await usersRepo.findUserById(transaction, created.id);
        if (!user) throw new AccountNeededError();
        createdAccount = true;
      }

      // The member's row first, before the purchase's reference to it takes a weaker lock that
      // two grants would then both try to raise (a deadlock).
      await usersRepo.lockUser(transaction, user.id);
      const purchaseId = await purchasesRepo.insertPurchase(transaction, {
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
        // Placeholders: the ledger gives the period, a line below.
        startsAt: grantedAt,
        expiresAt: grantedAt,
      });
      if (isReplay) await repo.markParkedEventReplayed(transaction, event.id);
      if (!purchaseId) return { kind: 'already-granted' };
      const period = await ledger.grantPass(transaction, {
        userId: user.id,
        purchaseId,
        days: plan.days,
        grantedAt,
      });
      if (checkout.customerId)
        await usersRepo.setStripeCustomerIfMissing(transaction, user.id, checkout.customerId);
      // A refund or a lost dispute that came in before the grant did.
      if (checkout.paymentIntentId)
        await applyReversal(
          transaction,
          { id: purchaseId, userId: user.id },
          checkout.paymentIntentId,
        );

      if (createdAccount && newAccount) {
        await deps.mail.enqueue(transaction, {
          to: user.email,
          userId: user.id,
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
      const isMismatch =
        checkout.amountCents !== plan.priceCents || checkout.currency !== plan.currency;
      if (isMismatch) {
        // Granted per the plan all the same (the buyer paid what our checkout asked, or what a
        // coupon we issued left): an operator must see that a price and Stripe disagree.
        deps.log.error(
          {
            eventId: event.id,
            sessionId: checkout.sessionId,
            paid: `${checkout.amountCents} ${checkout.currency}`,
            listed: `${plan.priceCents} ${plan.currency}`,
          },
          `stripe: paid ${checkout.amountCents} ${checkout.currency} where the plan lists ${plan.priceCents} ${plan.currency}`,
        );
      }
      return {
        kind: 'granted',
        userId: user.id,
        expiresAt: period.expiresAt,
        createdAccount,
        ...(isMismatch
          ? {
              mismatch: {
                paid: { amountCents: checkout.amountCents, currency: checkout.currency },
                listed: { amountCents: plan.priceCents, currency: plan.currency },
              },
            }
          : {}),
      };
    });
  }

  /**
   * Grants a paid checkout: the plan's days on the ledger, with the purchase row and the event
   * id, in one transaction. A buyer without an account gets one, with a generated password
   * mailed once. Two grants racing to create the same account (the email in two cases, say)
   * collide on the unique email; the loser runs again and extends the winner's account.
   */
  async function grantCheckout(event: Stripe.Event, isReplay = false): Promise<StripeEventOutcome> {
    const checkout = checkoutFromEvent(event);
    for (let attempt = 0; ; attempt += 1) {
      // Hashing is slow: done before the transaction, and only when no account exists yet.
      const hasAccount = (await findBuyer(db, checkout)) !== undefined;
      let newAccount: { password: string; hash: string } | undefined;
      if (!hasAccount && checkout.isPaid && checkout.email) {
        const password = generatePassword();
        newAccount = { password, hash: await hasher.hash(password) };
      }
      try {
        return await grantOnce(checkout, event, newAccount, isReplay);
      } catch (error) {
        const isRace = isUniqueViolation(error) || error instanceof AccountNeededError;
        if (!isRace || attempt >= 3) throw error;
      }
    }
  }

  /**
   * The purchase a PaymentIntent paid for. One granted before PaymentIntents were recorded is
   * found through Stripe (the Checkout Session of that PaymentIntent), and remembered.
   */
  async function findPurchaseOfPayment(paymentIntentId: string) {
    const purchase = await purchasesRepo.findPurchaseByPaymentIntent(db, paymentIntentId);
    if (purchase) return purchase;
    const sessions = await deps.stripe.checkout.sessions.list({
      payment_intent: paymentIntentId,
      limit: 1,
    });
    const session = sessions.data[0];
    return session ? purchasesRepo.findPurchaseBySession(db, session.id) : undefined;
  }

  /** Records a refund or dispute event and applies it to its purchase, once. */
  async function recordReversal(
    event: Stripe.Event,
    paymentIntentId: string,
    record: (transaction: Transaction<Database>) => Promise<void>,
  ): Promise<{ isNew: boolean; purchaseFound: boolean; revoked: boolean }> {
    const known = await findPurchaseOfPayment(paymentIntentId);
    return db.transaction().execute(async (transaction) => {
      if (!(await repo.recordStripeEvent(transaction, { id: event.id, type: event.type }))) {
        return { isNew: false, purchaseFound: known !== undefined, revoked: false };
      }
      await repo.lockPayment(transaction, paymentIntentId);
      // The member's row before his purchase's: a grant for him holds the first and then
      // rewrites the second, so taking them the other way round could deadlock with it.
      if (known?.userId) await usersRepo.lockUser(transaction, known.userId);
      await record(transaction);
      if (known)
        await purchasesRepo.setPurchasePaymentIntent(transaction, known.id, paymentIntentId);
      // Read again under the payment's lock: a grant may have committed since.
      const purchase = await purchasesRepo.findPurchaseByPaymentIntent(
        transaction,
        paymentIntentId,
      );
      if (!purchase) return { isNew: true, purchaseFound: false, revoked: false };
      const revoked = await applyReversal(transaction, purchase, paymentIntentId);
      return { isNew: true, purchaseFound: true, revoked };
    });
  }

  async function handleRefund(event: Stripe.Event): Promise<StripeEventOutcome> {
    const charge = event.data.object as Stripe.Charge;
    const paymentIntentId = idOf(charge.payment_intent);
    if (!paymentIntentId) return { kind: 'incomplete', reason: 'refund without a payment' };
    const result = await recordReversal(event, paymentIntentId, (transaction) =>
      repo.recordChargeRefunds(transaction, {
        paymentIntentId,
        chargeId: charge.id,
        amountCents: charge.amount,
        amountRefundedCents: charge.amount_refunded,
        currency: charge.currency,
        // A partial refund keeps the days: the member still paid for them (ADR 012).
        isFullyRefunded: charge.refunded || charge.amount_refunded >= charge.amount,
        at: eventTime(event),
      }),
    );
    if (!result.isNew) return { kind: 'duplicate-event' };
    if (!result.purchaseFound) return { kind: 'unknown-payment' };
    return { kind: 'refund-recorded', revoked: result.revoked };
  }

  async function handleDispute(event: Stripe.Event): Promise<StripeEventOutcome> {
    const dispute = event.data.object as Stripe.Dispute;
    const paymentIntentId = idOf(dispute.payment_intent);
    if (!paymentIntentId) return { kind: 'incomplete', reason: 'dispute without a payment' };
    const result = await recordReversal(event, paymentIntentId, (transaction) =>
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
    if (!result.isNew) return { kind: 'duplicate-event' };
    if (!result.purchaseFound) return { kind: 'unknown-payment' };
    return { kind: 'dispute-recorded', revoked: result.revoked };
  }

  return {
    /**
     * Handles one verified event; throws on failure (the webhook answers a 5xx, and Stripe
     * delivers the event again later), Stripe's own failures as ProviderErrors.
     */
    handleEvent: reportingStripeFailures(async function handleEvent(
      event: Stripe.Event,
    ): Promise<StripeEventOutcome> {
      if (!HANDLED_STRIPE_EVENTS.has(event.type)) return { kind: 'ignored-type' };
      if (event.type.startsWith('checkout.session.')) return grantCheckout(event);
      if (event.type === 'charge.refunded') return handleRefund(event);
      return handleDispute(event);
    }),

    /** Grants a parked checkout again (its plan exists now): `npm run payments:replay`. */
    async replayParkedEvent(eventId: string): Promise<StripeEventOutcome | undefined> {
      const parked = await repo.findParkedEvent(db, eventId);
      if (!parked) return undefined;
      return grantCheckout(JSON.parse(parked.payload) as Stripe.Event, true);
    },
  };
}

/** The account vanished or appeared between the check and the transaction: run again. */
class AccountNeededError extends Error {}
