// The tables as Kysely sees them. Columns are snake_case in SQL (migrations/) and camelCase here
// (Kysely's CamelCasePlugin translates). Keep this file in step with the migrations.
import type { ColumnType, Generated } from 'kysely';

export interface Database {
  schemaMigrations: SchemaMigrationsTable;
  plans: PlansTable;
  users: UsersTable;
  authSessions: AuthSessionsTable;
  refreshTokens: RefreshTokensTable;
  oneTimeCodes: OneTimeCodesTable;
  outboxEmails: OutboxEmailsTable;
  purchases: PurchasesTable;
  stripeEvents: StripeEventsTable;
  userIdentities: UserIdentitiesTable;
  usedSignInNonces: UsedSignInNoncesTable;
}

export interface SchemaMigrationsTable {
  name: string;
  appliedAt: ColumnType<Date, never, never>;
}

export interface PlansTable {
  id: string;
  name: string;
  days: number;
  /** Integer cents: money is never a float in storage. */
  priceCents: number;
  currency: string;
  createdAt: Generated<Date>;
}

export interface UsersTable {
  id: Generated<string>;
  email: string;
  passwordHash: string | null;
  subscriptionEndDate: Date | null;
  stripeCustomerId: Generated<string | null>;
  emailVerifiedAt: Generated<Date | null>;
  /** Raised whenever the password or email changes: codes issued before stop working. */
  credentialVersion: Generated<number>;
  createdAt: Generated<Date>;
  updatedAt: Generated<Date>;
}

export interface AuthSessionsTable {
  id: Generated<string>;
  userId: string;
  createdAt: Generated<Date>;
  expiresAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
}

export interface RefreshTokensTable {
  id: Generated<string>;
  sessionId: string;
  tokenHash: string;
  createdAt: Generated<Date>;
  rotatedAt: Date | null;
}

export type OneTimeCodePurpose = 'password_reset' | 'email_change' | 'email_change_cancel';

export interface OneTimeCodesTable {
  id: Generated<string>;
  userId: string;
  purpose: OneTimeCodePurpose;
  email: string;
  codeHash: string;
  /** The account's credential version when the code was issued. */
  credentialVersion: number;
  /** For a cancel code: the address the account was asked to move to. */
  requestedEmail: Generated<string | null>;
  createdAt: Generated<Date>;
  expiresAt: Date;
  consumedAt: Date | null;
}

export interface OutboxEmailsTable {
  id: Generated<string>;
  recipient: string;
  template: string;
  encryptedPayload: string | null;
  createdAt: Generated<Date>;
  attempts: Generated<number>;
  nextAttemptAt: Generated<Date>;
  lockedUntil: Date | null;
  sentAt: Date | null;
  failedAt: Date | null;
  lastError: string | null;
  /** Its link expires then: not sent, nor retried, after. Null for a mail without a link. */
  uselessAfter: Date | null;
  /** Retried for as long as it takes (hourly past the last attempt), never marked failed. */
  neverGiveUp: Generated<boolean>;
}

export type PurchaseProvider = 'Stripe' | 'Apple';

export interface PurchasesTable {
  id: Generated<string>;
  userId: string;
  planId: string | null;
  planName: string;
  provider: PurchaseProvider;
  providerPaymentId: string;
  amountCents: number;
  currency: string;
  days: number;
  startsAt: Date;
  expiresAt: Date;
  createdAt: Generated<Date>;
}

export interface StripeEventsTable {
  id: string;
  type: string;
  receivedAt: Generated<Date>;
}

export interface UserIdentitiesTable {
  provider: 'google' | 'apple';
  subject: string;
  userId: string;
  email: string | null;
  createdAt: Generated<Date>;
  lastSignInAt: Generated<Date>;
}

export interface UsedSignInNoncesTable {
  nonceHash: string;
  expiresAt: Date;
}
