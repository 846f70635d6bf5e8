// The SQL of the reminders before a premium ends: the module owns premium_expiry_reminders and
// reads the member, his purchases, his App Store subscriptions and the outbox rows of his
// reminders. No rules live here (reminders.ts has them).
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/** How long before the end the mail goes: 72 hours. */
export const REMIND_BEFORE_SECONDS = 72 * 60 * 60;

/** Apple's statuses after which a subscription renews no more: 2 expired, 5 revoked. */
const ENDED_APP_STORE_STATUSES = [2, 5];

/**
 * The members to remind now: reminders on, premium ending in (now, until], that end being the
 * end of a web pass or support grant that counts and was bought more than 72 hours before it, no
 * App Store subscription that renews, and no reminder of that end yet. One member only with
 * `userId` (the check under his row lock).
 *
 * Found from the purchases that end in the window, through purchases_ending (migration 0030):
 * users has no index of its premium end (with one, every grant's update of the member's row would
 * write into each of users' indexes), and a scan of it took 1.8 s at a million members (issue 30).
 */
export function findDueReminders(
  db: Executor,
  window: { now: Date; until: Date; userId?: string },
) {
  let query = db
    .selectFrom('purchases')
    .innerJoin('users', (join) =>
      join
        .onRef('users.id', '=', 'purchases.userId')
        .onRef('users.subscriptionEndDate', '=', 'purchases.expiresAt'),
    )
    .select(['users.id', 'users.email', 'users.locale', 'users.subscriptionEndDate as endsAt'])
    // purchases_ending's own predicate, a web pass or support grant that counts, written as
    // literals: a plan made without the values (a prepared statement's generic plan) could not
    // know the index covers them, and would read all of purchases.
    .where(sql<boolean>`purchases.provider in ('Stripe', 'Support')`)
    .where('purchases.revokedAt', 'is', null)
    .where('purchases.expiresAt', '>', window.now)
    .where('purchases.expiresAt', '<=', window.until)
    // Bought within the last 72 hours of its end (a day pass): he was told the end then.
    .where(
      'purchases.createdAt',
      '<=',
      sql<Date>`purchases.expires_at - make_interval(secs => ${REMIND_BEFORE_SECONDS})`,
    )
    // Asked of the purchase's member and end, which the index holds: a member reminded of this
    // end already (nearly all of them, run after run) is never read. A scalar subquery, never
    // turned into a join: PostgreSQL misjudges the join on the end as one row and, as an
    // anti-join, scanned the reminders once per candidate.
    .where(
      sql<boolean>`(select true from premium_expiry_reminders
        where premium_expiry_reminders.user_id = purchases.user_id
        and premium_expiry_reminders.ends_at = purchases.expires_at) is null`,
    )
    .where('users.expiryReminders', '=', true)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('appStoreSubscriptions')
            .select(sql`1`.as('one'))
            .whereRef('appStoreSubscriptions.userId', '=', 'users.id')
            .where('appStoreSubscriptions.autoRenew', '=', true)
            .where(
              sql<number>`coalesce(app_store_subscriptions.status, 1)`,
              'not in',
              ENDED_APP_STORE_STATUSES,
            ),
        ),
      ),
    );
  if (window.userId) query = query.where('users.id', '=', window.userId);
  // One purchase ends where the member's premium ends (the ledger stacks the periods), so each
  // member comes once; a second row would only meet the reminder's unique key.
  return query.orderBy('users.subscriptionEndDate').execute();
}

/** Records the reminder of this end; false when one was recorded already (by any process). */
export async function insertReminder(
  db: Transaction<Database>,
  reminder: { userId: string; endsAt: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('premiumExpiryReminders')
    .values(reminder)
    .onConflict((conflict) => conflict.columns(['userId', 'endsAt']).doNothing())
    .returning('userId')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function setReminderMail(
  db: Transaction<Database>,
  reminder: { userId: string; endsAt: Date; outboxEmailId: string },
): Promise<void> {
  await db
    .updateTable('premiumExpiryReminders')
    .set({ outboxEmailId: reminder.outboxEmailId })
    .where('userId', '=', reminder.userId)
    .where('endsAt', '=', reminder.endsAt)
    .execute();
}

/**
 * The outbox rows of reminders not sent yet that no longer hold: of one member (`userId`), those
 * of another end than `endsAt` (or all of them, with `endsAt` undefined); of every member (no
 * `userId`), those whose end moved or whose member turned reminders off.
 */
export async function listStaleReminderMails(
  db: Executor,
  scope: { userId: string; endsAt?: Date | null } | { userId?: undefined },
): Promise<string[]> {
  let query = db
    .selectFrom('premiumExpiryReminders')
    .innerJoin('outboxEmails', 'outboxEmails.id', 'premiumExpiryReminders.outboxEmailId')
    .select('outboxEmails.id')
    .where('outboxEmails.sentAt', 'is', null)
    .where('outboxEmails.failedAt', 'is', null);
  if (scope.userId) {
    query = query.where('premiumExpiryReminders.userId', '=', scope.userId);
    if (scope.endsAt !== undefined) {
      query = query.where(
        sql<boolean>`premium_expiry_reminders.ends_at is distinct from ${scope.endsAt}::timestamptz`,
      );
    }
  } else {
    query = query
      .innerJoin('users', 'users.id', 'premiumExpiryReminders.userId')
      .where((eb) =>
        eb.or([
          eb('users.expiryReminders', '=', false),
          sql<boolean>`premium_expiry_reminders.ends_at is distinct from users.subscription_end_date`,
        ]),
      );
  }
  return (await query.execute()).map((row) => row.id);
}
