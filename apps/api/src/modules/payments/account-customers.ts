// The Stripe customer of an account, as Stripe knows it now: made on first need, kept at the
// account's current email, and replaced when Stripe reports it deleted.
import type Stripe from 'stripe';

import { usersRepo } from '../users';
import type { PaymentsServiceDependencies } from './service';

/**
 * The account's Stripe customer for a checkout or a portal visit, as Stripe knows it now: made
 * on first need, given the account's current email (Stripe's pages show it, read-only), and
 * replaced by a new one when Stripe reports it deleted, since Stripe refuses a deleted customer
 * everywhere (deleted in its dashboard, or the customer of an account deleted while its
 * checkout was open, which the payment then brought back). Undefined when the account is gone.
 */
export async function currentCustomerFor(
  deps: PaymentsServiceDependencies,
  userId: string,
): Promise<string | undefined> {
  const user = await usersRepo.findStripeCustomer(deps.db, userId);
  if (!user) return undefined;
  if (!user.stripeCustomerId) return adoptNewCustomer(deps, userId, user.email);
  const customer = await readCustomer(deps, user.stripeCustomerId, userId);
  if (customer === 'deleted')
    return adoptNewCustomer(deps, userId, user.email, user.stripeCustomerId);
  if (customer && customer.email !== user.email) {
    await tryUpdateCustomerEmail(deps, userId, user.stripeCustomerId, user.email);
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
  deps: PaymentsServiceDependencies,
  userId: string,
  email: string,
  replacing?: string,
): Promise<string | undefined> {
  const customer = await (
    await deps.stripe()
  ).customers.create(
    { email, metadata: { userId } },
    {
      idempotencyKey: replacing
        ? `customer-${userId}-replacing-${replacing}`
        : `customer-${userId}`,
    },
  );
  // Waits for a deletion in progress (it holds the member's row), then finds no row to set.
  if (replacing) await usersRepo.replaceStripeCustomer(deps.db, userId, replacing, customer.id);
  else await usersRepo.setStripeCustomerIfMissing(deps.db, userId, customer.id);
  const stored = await usersRepo.findStripeCustomer(deps.db, userId);
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
  deps: PaymentsServiceDependencies,
  customerId: string,
  userId: string,
): Promise<Stripe.Customer | 'deleted' | undefined> {
  try {
    const customer = await (await deps.stripe()).customers.retrieve(customerId);
    return customer.deleted ? 'deleted' : customer;
  } catch (error) {
    if ((error as { code?: string }).code === 'resource_missing') return 'deleted';
    deps.log.error({ err: error, userId }, 'stripe: customer not read');
    return undefined;
  }
}

/** An email update that fails must not keep the member from paying or from his portal. */
async function tryUpdateCustomerEmail(
  deps: PaymentsServiceDependencies,
  userId: string,
  customerId: string,
  email: string,
): Promise<void> {
  try {
    await (await deps.stripe()).customers.update(customerId, { email });
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
export async function syncCustomerEmail(
  deps: PaymentsServiceDependencies,
  userId: string,
): Promise<void> {
  try {
    const user = await usersRepo.findStripeCustomer(deps.db, userId);
    if (!user?.stripeCustomerId) return;
    const customer = await readCustomer(deps, user.stripeCustomerId, userId);
    if (!customer || customer === 'deleted' || customer.email === user.email) return;
    await tryUpdateCustomerEmail(deps, userId, user.stripeCustomerId, user.email);
  } catch (error) {
    deps.log.error({ err: error, userId }, 'stripe: customer email not updated');
  }
}
