// The SQL of "Download your data": every row the product keeps about one member, in the columns
// that may leave (no hashes, tokens, codes or mail bodies). No rules live here.
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { readPreferences } from './repo';

export async function readMemberData(db: Kysely<Database>, userId: string) {
  const user = await db
    .selectFrom('users')
    .select(['id', 'email', 'createdAt', 'emailVerifiedAt', 'passwordHash', 'subscriptionEndDate'])
    // Whether two-step sign-in is on: never its secret or recovery codes.
    .select((select) =>
      select
        .exists(
          select
            .selectFrom('twoStepAuthenticators')
            .select('userId')
            .whereRef('twoStepAuthenticators.userId', '=', 'users.id')
            .where('twoStepAuthenticators.confirmedAt', 'is not', null),
        )
        .as('twoStepEnabled'),
    )
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!user) return undefined;
  const identities = await db
    .selectFrom('userIdentities')
    .select(['provider', 'email', 'createdAt', 'lastSignInAt'])
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .execute();
  const sessions = await db
    .selectFrom('authSessions')
    .select(['createdAt', 'lastUsedAt', 'expiresAt', 'revokedAt', 'deviceLabel', 'signInMethod'])
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .execute();
  const purchases = await readPurchases(db, userId);
  const appStoreSubscriptions = await readAppStoreSubscriptions(db, userId);
  const passkeys = await readPasskeys(db, userId);
  // The mail about the account, to whichever address it went. Never mail that names no account:
  // a deletion's confirmation to this address is a former owner's (migrations/0016).
  const emails = await db
    .selectFrom('outboxEmails')
    .select(['template', 'recipient', 'createdAt', 'sentAt'])
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .execute();
  const signIns = await db
    .selectFrom('signInEvents')
    .select(['createdAt', 'method', 'outcome', 'deviceLabel', 'clientAddress'])
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .orderBy('sequence')
    .execute();
  return {
    preferences: await readPreferences(db, userId),
    appleRefundRequests: await readAppleRefundRequests(db, userId),
    user,
    identities,
    sessions,
    purchases,
    appStoreSubscriptions,
    passkeys,
    emails,
    signIns,
  };
}

/** Apple's refund requests answered with his consent: when, why, and what became of each. */
function readAppleRefundRequests(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('appStoreConsumptionReports')
    .select(['requestedAt', 'reason', 'outcome', 'closedAt'])
    .where('userId', '=', userId)
    .orderBy('requestedAt')
    .execute();
}

/** Never a passkey's public key or credential id: what the member may read, not what signs in. */
function readPasskeys(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('passkeys')
    .select(['name', 'createdAt', 'lastUsedAt', 'transports'])
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .execute();
}

/** Every purchase, with what Stripe refunded of it. */
function readPurchases(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('purchases')
    .leftJoin('stripeCharges', 'stripeCharges.paymentIntentId', 'purchases.paymentIntentId')
    .select([
      'purchases.planName',
      'purchases.provider',
      'purchases.environment',
      'purchases.amountCents',
      'purchases.currency',
      'purchases.createdAt',
      'purchases.startsAt',
      'purchases.expiresAt',
      'purchases.revokedAt',
      'stripeCharges.amountRefundedCents',
    ])
    .where('purchases.userId', '=', userId)
    .orderBy('purchases.createdAt')
    .execute();
}

/** The App Store subscriptions bound to the account. */
function readAppStoreSubscriptions(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('appStoreSubscriptions')
    .select([
      'originalTransactionId',
      'productId',
      'environment',
      'autoRenew',
      'gracePeriodExpiresAt',
    ])
    .where('userId', '=', userId)
    .orderBy('createdAt')
    .execute();
}
