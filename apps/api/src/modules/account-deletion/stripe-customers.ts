// A deleted account's Stripe customer: Stripe forgets the person too (his payments stay, as ours
// do). The deletion's transaction records the customer (repo.ts); it is deleted right after the
// commit, and what Stripe did not do then is tried again by every process
// (customer-deletion-retries.ts), each row under a lease, until Stripe has answered.
import type { Kysely } from 'kysely';

import type { StripeClient } from '../../plugins/payments';
import type { Database } from '../../db/schema';
import type { OperatorLog } from '../payments';
import * as repo from './repo';

/**
 * A deleted account's customer that Stripe did not delete is tried again 1, 2, 4… minutes later,
 * at most 6 hours apart, for as long as it takes.
 */
const CUSTOMER_DELETION_MAX_RETRY_SECONDS = 6 * 60 * 60;
/** How long a process that took a deletion has it before another may try it. */
const CUSTOMER_DELETION_LEASE_SECONDS = 5 * 60;
const CUSTOMER_DELETIONS_PER_RUN = 20;

export type StripeCustomerCleanUp = ReturnType<typeof createStripeCustomerCleanUp>;

interface CleanUpDependencies {
  db: Kysely<Database>;
  stripe: StripeClient;
  log: OperatorLog;
}

export function createStripeCustomerCleanUp(deps: CleanUpDependencies) {
  return {
    /**
     * After an account was deleted (which recorded its customer). The SDK retries network
     * failures; a failure after that is logged and tried again.
     */
    deleteCustomer: (account: { userId: string; stripeCustomerId: string | null }) =>
      deleteCustomer(deps, account),
    /** A customer made for an account deleted meanwhile: recorded, then deleted the same way. */
    async forgetCustomer(account: { userId: string; stripeCustomerId: string }): Promise<void> {
      await repo.recordStripeCustomerDeletion(deps.db, account.stripeCustomerId);
      await deleteCustomer(deps, account);
    },
    /** What customer-deletion-retries.ts runs now and then, in every process. */
    retryCustomerDeletions: () => retryCustomerDeletions(deps),
  };
}

/**
 * Stripe forgets the customer of a deleted account, which waits in stripe_customer_deletions
 * (the account's deletion recorded it) until Stripe has answered. A failure (after the SDK's own
 * retries) is logged and tried again later by `retryCustomerDeletions`, never thrown.
 */
async function deleteCustomer(
  deps: CleanUpDependencies,
  account: {
    userId: string;
    stripeCustomerId: string | null;
  },
): Promise<void> {
  if (!account.stripeCustomerId) return;
  try {
    await attemptCustomerDeletion(deps, account.stripeCustomerId, 1);
  } catch (error) {
    // The database, not Stripe: the row stays due, and a later run tries it.
    deps.log.error(
      { err: error, userId: account.userId, customerId: account.stripeCustomerId },
      'stripe: deletion of a deleted account customer not attempted; tried again later',
    );
  }
}

/** One attempt at a recorded deletion; `attempt` counts from 1. True once Stripe has it done. */
async function attemptCustomerDeletion(
  deps: CleanUpDependencies,
  customerId: string,
  attempt: number,
): Promise<boolean> {
  try {
    await (await deps.stripe()).customers.del(customerId);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'resource_missing') {
      const retryInSeconds = Math.min(
        CUSTOMER_DELETION_MAX_RETRY_SECONDS,
        60 * 2 ** Math.min(attempt - 1, 20),
      );
      await repo.recordCustomerDeletionFailure(deps.db, {
        customerId,
        error: error instanceof Error ? error.message : String(error),
        retryInSeconds,
      });
      deps.log.error(
        { err: error, customerId, attempt, retryInSeconds },
        'stripe: customer of a deleted account not deleted yet; tried again later',
      );
      return false;
    }
  }
  await repo.forgetCustomerDeletion(deps.db, customerId);
  return true;
}

/** The deletions that are due, each tried once; how many Stripe has now done. */
async function retryCustomerDeletions(deps: CleanUpDependencies): Promise<number> {
  const due = await repo.claimDueCustomerDeletions(
    deps.db,
    CUSTOMER_DELETIONS_PER_RUN,
    CUSTOMER_DELETION_LEASE_SECONDS,
  );
  let done = 0;
  for (const { customerId, attempts } of due) {
    if (await attemptCustomerDeletion(deps, customerId, attempts)) done += 1;
  }
  return done;
}
