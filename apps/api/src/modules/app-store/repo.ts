// The SQL of App Store subscriptions and notifications. No rules live here.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { AppStoreSubscriptionsTable, Database } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * A subscription, as the App Store names it: its original transaction id in its environment.
 * Sandbox and Production number their transactions apart, so the id alone names nothing.
 */
export interface SubscriptionKey {
  environment: string;
  originalTransactionId: string;
}

/** True when new; false for a notification received before (a redelivery). */
export async function recordNotification(
  db: Transaction<Database>,
  notification: {
    notificationUuid: string;
    notificationType: string;
    subtype: string | null;
    environment: string;
    originalTransactionId: string | null;
    signedAt: Date;
    payload: string;
  },
): Promise<boolean> {
  const inserted = await db
    .insertInto('appStoreNotifications')
    .values({ ...notification, appliedAt: null })
    .onConflict((conflict) => conflict.column('notificationUuid').doNothing())
    .returning('notificationUuid')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function markNotificationApplied(
  db: Transaction<Database>,
  notificationUuid: string,
): Promise<void> {
  await db
    .updateTable('appStoreNotifications')
    .set({ appliedAt: sql<Date>`now()`, payload: null })
    .where('notificationUuid', '=', notificationUuid)
    .execute();
}

/** Notifications kept for a subscription bound to no account, oldest signature first. */
export function listPendingNotifications(db: Transaction<Database>, subscription: SubscriptionKey) {
  return db
    .selectFrom('appStoreNotifications')
    .select(['notificationUuid', 'payload'])
    .where('environment', '=', subscription.environment)
    .where('originalTransactionId', '=', subscription.originalTransactionId)
    .where('appliedAt', 'is', null)
    .orderBy('signedAt')
    .execute();
}

/** Until the transaction ends, nobody else changes this subscription. */
export async function lockSubscription(
  db: Transaction<Database>,
  subscription: SubscriptionKey,
): Promise<void> {
  const key = `app-store:${subscription.environment}:${subscription.originalTransactionId}`;
  await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(db);
}

export function findSubscription(db: Executor, subscription: SubscriptionKey) {
  return db
    .selectFrom('appStoreSubscriptions')
    .select(['originalTransactionId', 'userId', 'environment', 'productId'])
    .where('environment', '=', subscription.environment)
    .where('originalTransactionId', '=', subscription.originalTransactionId)
    .executeTakeFirst();
}

/**
 * What the latest signed word says of a subscription: an older one (delivered late) changes
 * nothing. The account it is bound to is not changed here.
 */
export async function saveSubscriptionState(
  db: Transaction<Database>,
  state: Omit<AppStoreSubscriptionsTable, 'userId' | 'createdAt' | 'updatedAt'>,
): Promise<void> {
  await db
    .insertInto('appStoreSubscriptions')
    .values({ ...state, userId: null })
    .onConflict((conflict) =>
      conflict
        .columns(['environment', 'originalTransactionId'])
        .doUpdateSet({
          productId: (eb) => eb.ref('excluded.productId'),
          autoRenew: sql<
            boolean | null
          >`coalesce(excluded.auto_renew, app_store_subscriptions.auto_renew)`,
          status: sql<number | null>`coalesce(excluded.status, app_store_subscriptions.status)`,
          gracePeriodExpiresAt: (eb) => eb.ref('excluded.gracePeriodExpiresAt'),
          signedAt: (eb) => eb.ref('excluded.signedAt'),
          updatedAt: sql<Date>`now()`,
        })
        .where(sql<boolean>`excluded.signed_at >= app_store_subscriptions.signed_at`),
    )
    .execute();
}

/** The subscription belongs to this account from now on (its service decides when it may). */
export async function bindSubscription(
  db: Transaction<Database>,
  subscription: SubscriptionKey,
  userId: string,
): Promise<void> {
  await db
    .updateTable('appStoreSubscriptions')
    .set({ userId, updatedAt: sql<Date>`now()` })
    .where('environment', '=', subscription.environment)
    .where('originalTransactionId', '=', subscription.originalTransactionId)
    .execute();
}

/** The plans sold in the iPhone app, shortest first (what the App Store sandbox offers). */
export function listAppStorePlans(db: Executor) {
  return db
    .selectFrom('plans')
    .select(['name', 'days', 'priceCents', 'appStoreProductId'])
    .where('appStoreProductId', 'is not', null)
    .orderBy('days')
    .execute();
}

export function findPlanByProduct(db: Executor, productId: string) {
  return db
    .selectFrom('plans')
    .select(['id', 'name', 'days', 'priceCents', 'currency'])
    .where('appStoreProductId', '=', productId)
    .executeTakeFirst();
}
