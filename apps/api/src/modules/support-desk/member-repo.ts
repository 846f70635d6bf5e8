// The SQL of the support desk's member pages: finding accounts by what a member quotes, and
// reading his account, purchases and App Store subscriptions. No rules live here. Deleted
// accounts are gone from `users` (their purchases are kept tied to no one), so every query that
// starts from a purchase or a subscription joins `users` and never finds them.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/** The most accounts one search answers. */
export const SEARCH_LIMIT = 20;

const MATCH_COLUMNS = [
  'users.id',
  'users.email',
  'users.createdAt',
  'users.subscriptionEndDate',
] as const;

function matches(db: Executor) {
  return db.selectFrom('users').select(MATCH_COLUMNS).limit(SEARCH_LIMIT);
}

function accounts(db: Executor) {
  return matches(db).orderBy('users.email');
}

/**
 * Accounts whose email starts with `prefix`, in any case; `%`, `_` and `\` count as themselves.
 * Ordered by the lower-cased email character by character: the order of the users_email_prefix
 * index (text_pattern_ops), which serves both the `like '…%'` and the order, so the first 20 are
 * read and nothing more. Ordered by `email` instead, a short prefix (`olivia`, 25,000 members of
 * a million) had every match read and sorted: 190 ms (docs/benchmarks/scale-explain.txt).
 */
export function findByEmailPrefix(db: Executor, prefix: string) {
  const literal = prefix.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`);
  return matches(db)
    .where(sql<string>`lower(users.email)`, 'like', `${literal}%`)
    .orderBy(sql`lower(users.email) using ~<~`)
    .execute();
}

export function findById(db: Executor, id: string) {
  return accounts(db).where('users.id', '=', id).execute();
}

export function findByStripeCustomer(db: Executor, customerId: string) {
  return accounts(db).where('users.stripeCustomerId', '=', customerId).execute();
}

export function findByCheckoutSession(db: Executor, sessionId: string) {
  return accounts(db)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('purchases')
          .select('purchases.id')
          .whereRef('purchases.userId', '=', 'users.id')
          .where('purchases.provider', '=', 'Stripe')
          .where('purchases.providerPaymentId', '=', sessionId),
      ),
    )
    .execute();
}

export function findByPaymentIntent(db: Executor, paymentIntentId: string) {
  return accounts(db)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('purchases')
          .select('purchases.id')
          .whereRef('purchases.userId', '=', 'users.id')
          .where('purchases.paymentIntentId', '=', paymentIntentId),
      ),
    )
    .execute();
}

/**
 * Accounts holding one of these App Store original transactions: bound to them as a subscription,
 * or as an App Store purchase (the first transaction's id is the original's). The accounts' ids
 * come from the two indexes by transaction id (a union), not from two EXISTS joined by OR:
 * PostgreSQL cannot turn an OR of EXISTS into a join, and read every account to test both on
 * each (a sequential scan of a million members: docs/benchmarks/scale-explain.txt).
 */
export function findByOriginalTransactions(db: Executor, originalTransactionIds: string[]) {
  return accounts(db)
    .where('users.id', 'in', (eb) =>
      eb
        .selectFrom('appStoreSubscriptions')
        .select('appStoreSubscriptions.userId')
        .where('appStoreSubscriptions.originalTransactionId', 'in', originalTransactionIds)
        .union(
          eb
            .selectFrom('purchases')
            .select('purchases.userId')
            .where('purchases.provider', '=', 'Apple')
            .where('purchases.providerPaymentId', 'in', originalTransactionIds),
        ),
    )
    .execute();
}

/** The member's account as his story shows it; undefined when there is no such account. */
export function findMemberProfile(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .leftJoin('operators', 'operators.userId', 'users.id')
    .select([
      'users.id',
      'users.email',
      'users.createdAt',
      'users.emailVerifiedAt',
      'users.subscriptionEndDate',
      'users.stripeCustomerId',
      'users.locale',
      'operators.role as operatorRole',
      sql<boolean>`users.password_hash is not null`.as('hasPassword'),
      sql<boolean>`exists (select 1 from two_step_authenticators t
        where t.user_id = users.id and t.confirmed_at is not null)`.as('twoStepEnabled'),
      sql<string>`(select count(*) from passkeys k where k.user_id = users.id)`.as('passkeys'),
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();
}

export function listIdentities(db: Executor, userId: string) {
  return db
    .selectFrom('userIdentities')
    .select(['provider', 'email'])
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .execute();
}

/**
 * Every purchase of the member, newest first, with what Stripe refunded of it (its charges) and,
 * for a grant of the support team, the grant's id.
 */
export function listMemberPurchases(db: Executor, userId: string) {
  return db
    .selectFrom('purchases')
    .leftJoin('operatorGrants', 'operatorGrants.purchaseId', 'purchases.id')
    .select([
      'purchases.id',
      'purchases.planName',
      'purchases.provider',
      'purchases.amountCents',
      'purchases.currency',
      'purchases.createdAt',
      'purchases.startsAt',
      'purchases.expiresAt',
      'purchases.revokedAt',
      'purchases.revokedReason',
      'purchases.providerPaymentId',
      'purchases.paymentIntentId',
      'operatorGrants.id as grantId',
      sql<string>`coalesce((select sum(c.amount_refunded_cents) from stripe_charges c
        where c.payment_intent_id = purchases.payment_intent_id), 0)`.as('refundedCents'),
    ])
    .where('purchases.userId', '=', userId)
    .orderBy('purchases.createdAt', 'desc')
    .orderBy('purchases.id', 'desc')
    .execute();
}

export function listAppStoreSubscriptions(db: Executor, userId: string) {
  return db
    .selectFrom('appStoreSubscriptions')
    .select(['originalTransactionId', 'productId', 'environment', 'status', 'autoRenew'])
    .where('userId', '=', userId)
    .orderBy('createdAt', 'desc')
    .execute();
}

/**
 * What the member's own signed-in calls know of his account (the profile answers it): the same
 * columns as the session's query (auth/session-repo.ts), without a session.
 */
export function findMemberAccount(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .select([
      'users.id',
      'users.email',
      'users.subscriptionEndDate',
      'users.locale',
      sql<boolean>`users.password_hash is not null`.as('hasPassword'),
      sql<boolean>`exists (select 1 from two_step_authenticators t
        where t.user_id = users.id and t.confirmed_at is not null)`.as('twoStepEnabled'),
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();
}
