// The tables as Kysely sees them. Columns are snake_case in SQL (migrations/) and camelCase here
// (Kysely's CamelCasePlugin translates). Keep this file in step with the migrations.
import type { ColumnType, Generated } from 'kysely';

import type {
  AppStoreSubscriptionsTable,
  AppStoreNotificationsTable,
  AppStoreConsumptionReportsTable,
  JobLeasesTable,
  AppStoreHistoryCursorsTable,
  PremiumExpiryRemindersTable,
  StripeCustomerDeletionsTable,
} from './schema-app-store-and-jobs';

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
  premiumLedger: PremiumLedgerTable;
  stripeCharges: StripeChargesTable;
  stripeDisputes: StripeDisputesTable;
  stripeFailedRefunds: StripeFailedRefundsTable;
  stripeParkedEvents: StripeParkedEventsTable;
  appStoreSubscriptions: AppStoreSubscriptionsTable;
  appStoreNotifications: AppStoreNotificationsTable;
  userIdentities: UserIdentitiesTable;
  usedSignInNonces: UsedSignInNoncesTable;
  stripeCustomerDeletions: StripeCustomerDeletionsTable;
  appStoreConsumptionReports: AppStoreConsumptionReportsTable;
  twoStepAuthenticators: TwoStepAuthenticatorsTable;
  twoStepRecoveryCodes: TwoStepRecoveryCodesTable;
  twoStepChallenges: TwoStepChallengesTable;
  signInEvents: SignInEventsTable;
  passkeys: PasskeysTable;
  passkeyChallenges: PasskeyChallengesTable;
  operators: OperatorsTable;
  auditEvents: AuditEventsTable;
  operatorGrants: OperatorGrantsTable;
  jobLeases: JobLeasesTable;
  appStoreHistoryCursors: AppStoreHistoryCursorsTable;
  premiumExpiryReminders: PremiumExpiryRemindersTable;
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
  /** The iOS app's product of this plan (premium.week …); null for the day pass. */
  appStoreProductId: Generated<string | null>;
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
  /** Apple may be told his usage when he asks Apple for a refund (migrations/0021). */
  appleConsumptionConsent: Generated<boolean>;
  /** When he last gave or withdrew that consent; null: never touched (off). */
  appleConsumptionConsentChangedAt: Generated<Date | null>;
  /** He is mailed before his premium ends. */
  expiryReminders: Generated<boolean>;
  /**
   * The language he reads the product and its mails in (migrations/0027); null: never chosen,
   * English. A code of SUPPORTED_LOCALES when written; read through isLocale all the same.
   */
  locale: Generated<string | null>;
}

export interface AuthSessionsTable {
  id: Generated<string>;
  userId: string;
  createdAt: Generated<Date>;
  expiresAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
  /** How it began; null for sessions from before this was recorded. */
  signInMethod: Generated<SignInMethod | null>;
  /** "Chrome on macOS", from the User-Agent at sign-in. */
  deviceLabel: Generated<string | null>;
  /** Its last sign-in or renewal. */
  lastUsedAt: Generated<Date>;
  /** When its owner last proved a second factor in it (migrations/0020). */
  secondFactorAt: Generated<Date | null>;
}

export type SignInMethod = 'password' | 'google' | 'apple' | 'passkey';

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
  /** The account it is about: deleted with it. Null for mail about no account (any more). */
  userId: string | null;
}

/** 'Support': premium days an operator granted (migrations/0020). */
export type PurchaseProvider = 'Stripe' | 'Apple' | 'Support';

export interface PurchasesTable {
  id: Generated<string>;
  /** Null once its buyer deleted his account: kept for the books, tied to no one. */
  userId: string | null;
  planId: string | null;
  planName: string;
  provider: PurchaseProvider;
  providerPaymentId: string;
  /** In minor units of `currency` as Stripe counts them (0025): ¥1,200 is 1200, $9.99 is 999. */
  amountCents: number;
  currency: string;
  days: number;
  /** The period the ledger gives it (kept as it was while the purchase is revoked). */
  startsAt: Date;
  expiresAt: Date;
  createdAt: Generated<Date>;
  /** Stripe's PaymentIntent, which refunds and disputes name. */
  paymentIntentId: Generated<string | null>;
  /** The plan's price when it was bought: differs from amountCents when Stripe charged else. */
  listedPriceCents: Generated<number | null>;
  listedCurrency: Generated<string | null>;
  /**
   * 'Sandbox' or 'Production' for an App Store purchase, part of its key (the two number their
   * transactions apart); null for Stripe.
   */
  environment: Generated<string | null>;
  /** Set (from the ledger) while the purchase is taken out by a refund or a lost dispute. */
  revokedAt: Generated<Date | null>;
  revokedReason: Generated<string | null>;
}

export type LedgerSource = 'stripe' | 'app_store' | 'support' | 'legacy';

export type LedgerEntryKind = 'grant' | 'period' | 'revoke' | 'reinstate' | 'balance';

export interface PremiumLedgerTable {
  sequence: Generated<string>;
  userId: string;
  source: LedgerSource;
  entry: LedgerEntryKind;
  purchaseId: string | null;
  days: number | null;
  endsAt: Date | null;
  reason: string;
  occurredAt: Date;
  recordedAt: Generated<Date>;
}

export interface StripeChargesTable {
  paymentIntentId: string;
  chargeId: string;
  amountCents: number;
  amountRefundedCents: number;
  currency: string;
  refundedAt: Date | null;
  updatedAt: Generated<Date>;
}

/** A refund that failed after Stripe reported it: counted once (0025). */
export interface StripeFailedRefundsTable {
  refundId: string;
  paymentIntentId: string;
  amountCents: number;
  currency: string;
  failedAt: Date;
  createdAt: Generated<Date>;
}

export interface StripeDisputesTable {
  id: string;
  paymentIntentId: string;
  chargeId: string;
  amountCents: number;
  currency: string;
  reason: string;
  status: string;
  openedAt: Date;
  closedAt: Date | null;
  updatedAt: Generated<Date>;
}

export interface StripeParkedEventsTable {
  eventId: string;
  type: string;
  /** The event's JSON, as verified. */
  payload: string;
  reason: string;
  parkedAt: Generated<Date>;
  replayedAt: Date | null;
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

/** A member's authenticator app (migrations/0018): on once `confirmedAt` is set. */
export interface TwoStepAuthenticatorsTable {
  userId: string;
  /** The TOTP secret, AES-256-GCM (security/keys.ts `seal`). */
  sealedSecret: string;
  confirmedAt: Date | null;
  /** The time step of the last code accepted: no code of it or before it is taken again. */
  lastUsedStep: number | null;
  createdAt: Generated<Date>;
}

export interface TwoStepRecoveryCodesTable {
  id: Generated<string>;
  userId: string;
  codeHash: string;
  usedAt: Date | null;
  createdAt: Generated<Date>;
}

/** A sign-in waiting for its code (the `mfaToken`). */
export interface TwoStepChallengesTable {
  id: Generated<string>;
  userId: string;
  tokenHash: string;
  signInMethod: SignInMethod;
  credentialVersion: number;
  wrongCodes: Generated<number>;
  expiresAt: Date;
  consumedAt: Date | null;
  createdAt: Generated<Date>;
}
/** One sign-in or failed attempt on an account (migrations/0019, ADR 019). */
export interface SignInEventsTable {
  id: Generated<string>;
  userId: string;
  createdAt: Generated<Date>;
  /** The order the events were written in (a tie-break for events of the same instant). */
  sequence: Generated<string>;
  /** A SignInMethod, or a later one (passkey, a second step): not constrained by the table. */
  method: string;
  outcome: SignInOutcome;
  deviceLabel: string;
  clientAddress: string;
  /** The IPv4 /24 or IPv6 /48 of the client address. */
  network: string;
  /** The hash of the "This wasn't me" code mailed about this sign-in, if one was. */
  notMeCodeHash: string | null;
  notMeExpiresAt: Date | null;
  notMeUsedAt: Date | null;
}

export type SignInOutcome = 'success' | 'failure';
/** A member's passkey: a WebAuthn credential's public half (migrations/0017). */
export interface PasskeysTable {
  id: Generated<string>;
  userId: string;
  /** base64url, as the browser names the credential. */
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** bigint: read it through the repo, which turns it into a number. */
  counter: ColumnType<string, number, number>;
  transports: ColumnType<string[], string[], string[]>;
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  name: string;
  createdAt: Generated<Date>;
  lastUsedAt: Date | null;
}

export type PasskeyChallengePurpose = 'register' | 'login';

/** A challenge handed out and not used yet, by its SHA-256 (migrations/0017). */
export interface PasskeyChallengesTable {
  challengeHash: string;
  purpose: PasskeyChallengePurpose;
  /** For a registration: the member and the session that asked. */
  userId: string | null;
  sessionId: string | null;
  expiresAt: Date;
}

export type OperatorRole = 'support' | 'admin';

/** Accounts of the support desk (migrations/0020), written only by `npm run operator`. */
export interface OperatorsTable {
  userId: string;
  role: OperatorRole;
  grantedAt: Generated<Date>;
}

/** The audit trail (migrations/0020): appended to, never edited (but for pseudonyms). */
export interface AuditEventsTable {
  sequence: Generated<string>;
  id: Generated<string>;
  occurredAt: Date;
  actorId: string | null;
  actorEmail: string;
  actorEmailDigest: string;
  actorRole: string;
  action: string;
  targetUserId: string | null;
  targetEmail: string | null;
  targetEmailDigest: string | null;
  reason: string | null;
  /** JSON { before, after }. */
  changes: string | null;
  requestId: string | null;
  clientAddress: string | null;
  previousHash: string;
  hash: string;
  pseudonymisedAt: Generated<Date | null>;
}

/** Premium days an operator granted (migrations/0020). */
export interface OperatorGrantsTable {
  id: Generated<string>;
  userId: string;
  purchaseId: string;
  idempotencyKey: string;
  days: number;
  reason: string;
  grantedBy: string | null;
  grantedAt: Generated<Date>;
  removedAt: Date | null;
  removedBy: string | null;
  removedReason: string | null;
}

export type * from './schema-app-store-and-jobs';
