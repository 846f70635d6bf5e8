// The SQL of "Delete account": the addresses it forgets and the Stripe customers it must delete.
// The member's row itself is deleted by the users repo (its owner); that takes his sessions,
// refresh tokens, codes, identities, premium ledger and mail with it (on delete cascade); his
// purchases stay, tied to no one, and his App Store subscriptions wait unbound (on delete set
// null: migrations/0012). No rules live here.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Whether Apple may still charge the member, or premium from the App Store runs now: a bound
 * subscription set to renew that has not expired or been revoked (Apple's status 2 and 5), or
 * an App Store purchase that counts until a later date.
 */
export async function hasActiveAppStoreSubscription(db: Executor, userId: string) {
  const renewing = await db
    .selectFrom('appStoreSubscriptions')
    .select('originalTransactionId')
    .where('userId', '=', userId)
    .where('autoRenew', '=', true)
    .where((where) => where.or([where('status', 'is', null), where('status', 'not in', [2, 5])]))
    .executeTakeFirst();
  if (renewing) return true;
  const running = await db
    .selectFrom('purchases')
    .select('id')
    .where('userId', '=', userId)
    .where('provider', '=', 'Apple')
    .where('revokedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return running !== undefined;
}

/**
 * The addresses an open email change of the member would move to: mail waits for them too. Not
 * an address another account holds now (registered, or bought with, after the change was asked
 * for and never confirmed): the mail there is that account's.
 */
export async function listRequestedEmails(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('oneTimeCodes')
    .select('email')
    .where('userId', '=', userId)
    .where('purpose', '=', 'email_change')
    .where('consumedAt', 'is', null)
    .where((where) =>
      where.not(
        where.exists(
          where
            .selectFrom('users')
            .select('users.id')
            .whereRef(sql`lower(users.email)`, '=', sql`lower(one_time_codes.email)`)
            .where('users.id', '<>', userId),
        ),
      ),
    )
    .execute();
  return rows.map((row) => row.email);
}

/**
 * A deleted account's Stripe customer, kept until Stripe has deleted it (customer-
 * deletion-retries.ts): written in the deletion's transaction, so it cannot be lost.
 */
export async function recordStripeCustomerDeletion(
  db: Executor,
  customerId: string,
): Promise<void> {
  await db
    .insertInto('stripeCustomerDeletions')
    .values({ customerId })
    .onConflict((conflict) => conflict.column('customerId').doNothing())
    .execute();
}

/**
 * Takes up to `limit` deletions that are due, for `leaseSeconds`: another process (or this one,
 * should it stop mid-way) takes them again only once that has passed. Counts the attempt.
 */
export async function claimDueCustomerDeletions(
  db: Executor,
  limit: number,
  leaseSeconds: number,
): Promise<Array<{ customerId: string; attempts: number }>> {
  return db
    .updateTable('stripeCustomerDeletions')
    .set({
      nextAttemptAt: sql<Date>`now() + make_interval(secs => ${leaseSeconds})`,
      attempts: sql<number>`attempts + 1`,
    })
    .where(
      'customerId',
      'in',
      db
        .selectFrom('stripeCustomerDeletions')
        .select('customerId')
        .where('nextAttemptAt', '<=', sql<Date>`now()`)
        .orderBy('nextAttemptAt')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['customerId', 'attempts'])
    .execute();
}

/** Stripe has deleted the customer (or never had it): nothing left to do. */
export async function forgetCustomerDeletion(db: Executor, customerId: string): Promise<void> {
  await db.deleteFrom('stripeCustomerDeletions').where('customerId', '=', customerId).execute();
}

export async function recordCustomerDeletionFailure(
  db: Executor,
  failure: { customerId: string; error: string; retryInSeconds: number },
): Promise<void> {
  await db
    .updateTable('stripeCustomerDeletions')
    .set({
      lastError: failure.error.slice(0, 500),
      nextAttemptAt: sql<Date>`now() + make_interval(secs => ${failure.retryInSeconds})`,
    })
    .where('customerId', '=', failure.customerId)
    .execute();
}
