// The SQL of the users table: accounts, their password, their address and their premium end.
// Every module that reads or writes a member's row goes through here. No rules live here.
import type { Locale } from '@kegel/contract/i18n';
import { CompiledQuery, type Kysely, type Selectable, sql, type Transaction } from 'kysely';

import { preparedStatement } from '../../db/prepared-statements';
import type { Database, UsersTable } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/** What the account rules read of a member's row. */
const ACCOUNT_COLUMNS = [
  'id',
  'email',
  'passwordHash',
  'subscriptionEndDate',
  'emailVerifiedAt',
  'credentialVersion',
  'locale',
] as const;

type Account = Pick<Selectable<UsersTable>, (typeof ACCOUNT_COLUMNS)[number]>;

/**
 * The account of an address, whatever its case: every password sign-in starts here, so its SQL
 * is written once and prepared (db/prepared-statements.ts) rather than built on each call.
 */
const ACCOUNT_BY_EMAIL_SQL = preparedStatement(
  'account_by_email',
  `select id, email, password_hash, subscription_end_date, email_verified_at, credential_version,
    locale
  from users where lower(email) = lower($1)`,
);

export async function findUserByEmail(db: Executor, email: string): Promise<Account | undefined> {
  // Kysely's CamelCasePlugin names the columns as ACCOUNT_COLUMNS does.
  const result = await db.executeQuery<Account>(CompiledQuery.raw(ACCOUNT_BY_EMAIL_SQL, [email]));
  return result.rows[0];
}

export function findUserById(db: Executor, id: string) {
  return db.selectFrom('users').select(ACCOUNT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function insertUser(
  db: Executor,
  user: { email: string; passwordHash: string | null; emailVerifiedAt?: Date; locale?: Locale },
) {
  return db
    .insertInto('users')
    .values(user)
    .returning(['id', 'email', 'credentialVersion', 'locale'])
    .executeTakeFirstOrThrow();
}

/**
 * Sets the password hash; with a condition, only while the row is as the caller last read it
 * (the credential version, or the very hash being replaced). Answers whether it was set.
 */
export async function updatePasswordHash(
  db: Executor,
  userId: string,
  passwordHash: string,
  condition: { credentialVersion?: number; replacing?: string } = {},
): Promise<boolean> {
  let query = db
    .updateTable('users')
    .set({ passwordHash, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId);
  if (condition.credentialVersion !== undefined) {
    query = query.where('credentialVersion', '=', condition.credentialVersion);
  }
  if (condition.replacing !== undefined) {
    query = query.where('passwordHash', '=', condition.replacing);
  }
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Locks the account's row until the transaction ends. Every transaction that changes an
 * account's credentials takes this lock first, so they queue in one order instead of
 * deadlocking over the row and its codes.
 */
export async function lockUser(db: Transaction<Database>, userId: string): Promise<void> {
  await db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

/** The owner of the address has just shown they read mail sent to it. */
export async function markEmailVerified(db: Executor, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ emailVerifiedAt: sql<Date>`now()`, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId)
    .execute();
}

/**
 * The account's password or email changed, or its owner took it back: codes issued before no
 * longer work (see migrations/0007). Answers the account's address as it is now.
 */
export function raiseCredentialVersion(db: Executor, userId: string) {
  return db
    .updateTable('users')
    .set({ credentialVersion: sql<number>`credential_version + 1`, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId)
    .returning(['email', 'credentialVersion', 'locale'])
    .executeTakeFirstOrThrow();
}

export async function removePassword(db: Executor, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ passwordHash: null, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId)
    .execute();
}

export async function updateEmail(db: Executor, userId: string, email: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ email, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId)
    .execute();
}

export async function setStripeCustomerIfMissing(
  db: Executor,
  userId: string,
  customerId: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ stripeCustomerId: customerId })
    .where('id', '=', userId)
    .where('stripeCustomerId', 'is', null)
    .execute();
}

/** Gives the account `replacement` as its Stripe customer if `replaced` is still its customer. */
export async function replaceStripeCustomer(
  db: Executor,
  userId: string,
  replaced: string,
  replacement: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ stripeCustomerId: replacement })
    .where('id', '=', userId)
    .where('stripeCustomerId', '=', replaced)
    .execute();
}

export function findStripeCustomer(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .select(['email', 'stripeCustomerId'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** The account a Stripe customer belongs to, if any. */
export function findUserByStripeCustomer(db: Executor, customerId: string) {
  return db
    .selectFrom('users')
    .select(ACCOUNT_COLUMNS)
    .where('stripeCustomerId', '=', customerId)
    .executeTakeFirst();
}

export function readPremiumEnd(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .select('subscriptionEndDate')
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function writePremiumEnd(
  db: Transaction<Database>,
  userId: string,
  endsAt: Date | null,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ subscriptionEndDate: endsAt, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId)
    .execute();
}

/** Deletes the member's row (and, by cascade, everything that is his alone, his mail included). */
export async function deleteUser(db: Executor, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

const PREFERENCE_COLUMNS = [
  'appleConsumptionConsent',
  'appleConsumptionConsentChangedAt',
  'expiryReminders',
  'locale',
] as const;

export function readPreferences(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .select(PREFERENCE_COLUMNS)
    .where('id', '=', userId)
    .executeTakeFirst();
}

/**
 * Changes the preferences given. The consent's time moves only when the consent itself changes:
 * saving the same answer again is not a new consent.
 */
export function updatePreferences(
  db: Executor,
  userId: string,
  changes: { appleConsumptionConsent?: boolean; expiryReminders?: boolean; locale?: Locale },
) {
  const consent = changes.appleConsumptionConsent;
  return db
    .updateTable('users')
    .set({
      ...(consent === undefined
        ? {}
        : {
            appleConsumptionConsent: consent,
            appleConsumptionConsentChangedAt: sql<Date | null>`case
              when apple_consumption_consent is distinct from ${consent} then now()
              else apple_consumption_consent_changed_at end`,
          }),
      ...(changes.expiryReminders === undefined
        ? {}
        : { expiryReminders: changes.expiryReminders }),
      ...(changes.locale === undefined ? {} : { locale: changes.locale }),
      updatedAt: sql<Date>`now()`,
    })
    .where('id', '=', userId)
    .returning(PREFERENCE_COLUMNS)
    .executeTakeFirst();
}
