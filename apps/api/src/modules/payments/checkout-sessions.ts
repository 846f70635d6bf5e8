// Stripe Checkout Sessions: started for a plan with our own price and days, naming their buyer,
// and described (without personal data) for the page the buyer comes back to.
import { randomUUID } from 'node:crypto';

import { type CheckoutSession, fieldMessages, fromMinorUnits } from '@kegel/contract';
import type Stripe from 'stripe';

import { AppError } from '../../errors';
import { loadStripeSdk } from '../../plugins/payments';
import type { Caller } from '../../security/client-address';
import { isAddressHeldForUndo } from '../auth';
import { usersRepo } from '../users';
import { currentCustomerFor } from './account-customers';
import * as repo from './repo';
import { checkoutMessages, type PaymentsServiceDependencies } from './service';

/**
 * A Stripe Checkout Session for a plan: amount and days from our plan, never the request.
 * A known email pays as its account's customer; a new one is created as a customer by Stripe.
 */
export async function startCheckout(
  deps: PaymentsServiceDependencies,
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
  const account = await usersRepo.findUserByEmail(deps.db, input.email);
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
  if (!account && (await isAddressHeldForUndo(deps.db, input.email))) {
    throw new AppError(409, checkoutMessages.addressHeld);
  }
  const plan = await repo.findPlan(deps.db, input.planId);
  if (!plan) throw new AppError(400, fieldMessages.planRequired);
  const customer = account ? await currentCustomerFor(deps, account.id) : undefined;
  // An account deleted meanwhile: the email buys as a newcomer's would.
  const user = customer ? account : undefined;
  const successQuery = `registered=${user ? 'true' : 'false'}&email=${encodeURIComponent(input.email)}`;
  const stripe = await deps.stripe();
  const session = await stripe.checkout.sessions.create(
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
      metadata: {
        planId: plan.id,
        email: input.email,
        ...(user ? { userId: user.id } : {}),
        // An account made when he has paid takes it (checkout-grants.ts).
        ...(caller.locale ? { locale: caller.locale } : {}),
      },
      // Stripe's page in the language of ours (Stripe speaks each of SUPPORTED_LOCALES).
      ...(caller.locale ? { locale: caller.locale } : {}),
      // Stripe fills in {CHECKOUT_SESSION_ID} itself; it must stay unencoded.
      success_url: `${deps.publicUrl}/purchase/complete?${successQuery}&session={CHECKOUT_SESSION_ID}`,
      cancel_url: `${deps.publicUrl}/purchase`,
    },
    // A fresh key per request: the SDK's own network retries then never create two sessions.
    { idempotencyKey: `checkout-${randomUUID()}` },
  );
  if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
  return session.url;
}

/** What /purchase/complete shows: no personal data. */
export async function describeCheckout(
  deps: PaymentsServiceDependencies,
  sessionId: string,
  caller: Caller,
): Promise<CheckoutSession> {
  // Anyone may ask, and each lookup is a call to Stripe's API on our account.
  const lookups = await deps.rateLimiter.hit(deps.lookupsPerAddress, caller.clientAddress);
  if (!lookups.isAllowed) {
    throw new AppError(429, checkoutMessages.tooManyLookupsFromAddress, lookups.retryAfterSeconds);
  }
  let session: Stripe.Checkout.Session;
  const stripe = await deps.stripe();
  try {
    session = await stripe.checkout.sessions.retrieve(sessionId);
  } catch (error) {
    const { errors } = await loadStripeSdk();
    if (error instanceof errors.StripeInvalidRequestError && error.statusCode === 404) {
      throw new AppError(404, 'Payment not found');
    }
    throw error;
  }
  const plan = session.metadata?.planId
    ? await repo.findPlan(deps.db, session.metadata.planId)
    : undefined;
  if (!plan) throw new AppError(404, 'Payment not found');
  const purchase = await repo.findPurchaseByPayment(deps.db, session.id);
  return {
    id: session.id,
    durationDays: purchase?.days ?? plan.days,
    beginsAt: (purchase?.startsAt ?? new Date(session.created * 1000)).toISOString(),
    providerType: 'Stripe',
    price: fromMinorUnits(
      session.amount_total ?? plan.priceCents,
      session.currency ?? plan.currency,
    ),
  };
}
