// The tables of the App Store's purchases and of the jobs that run beside the requests (issue 27),
// apart from schema.ts only to keep each file readable; `Database` (schema.ts) names them all.
import type { Generated } from 'kysely';

export interface AppStoreSubscriptionsTable {
  originalTransactionId: string;
  userId: string | null;
  environment: string;
  productId: string;
  autoRenew: boolean | null;
  status: number | null;
  gracePeriodExpiresAt: Date | null;
  signedAt: Date;
  createdAt: Generated<Date>;
  updatedAt: Generated<Date>;
}

export interface AppStoreNotificationsTable {
  notificationUuid: string;
  notificationType: string;
  subtype: string | null;
  /** Null only for one about no subscription, applied before environments were recorded. */
  environment: string | null;
  originalTransactionId: string | null;
  signedAt: Date;
  payload: string | null;
  receivedAt: Generated<Date>;
  appliedAt: Date | null;
}

/** An answer owed to Apple's refund request for a consenting member (migrations/0022). */
export interface AppStoreConsumptionReportsTable {
  notificationUuid: string;
  userId: string;
  environment: string;
  transactionId: string;
  originalTransactionId: string;
  reason: string | null;
  requestedAt: Date;
  giveUpAt: Date;
  attempts: Generated<number>;
  nextAttemptAt: Date;
  lastError: Generated<string | null>;
  sentRequest: Generated<string | null>;
  outcome: Generated<string | null>;
  closedAt: Generated<Date | null>;
  createdAt: Generated<Date>;
}

/** Which process runs a one-at-a-time job, until when (migrations/0023). */
export interface JobLeasesTable {
  jobName: string;
  holder: string;
  leasedUntil: Date;
}

/** How far the App Store notification history was read, per history (migrations/0023). */
export interface AppStoreHistoryCursorsTable {
  source: string;
  readUntil: Date | null;
  windowStart: Date | null;
  windowEnd: Date | null;
  paginationToken: string | null;
  updatedAt: Generated<Date>;
}

/** The reminders mailed before a premium end, one per member and end (migrations/0026). */
export interface PremiumExpiryRemindersTable {
  userId: string;
  endsAt: Date;
  outboxEmailId: string | null;
  createdAt: Generated<Date>;
}

/** A deleted account's Stripe customer, until Stripe has deleted it (migrations/0014). */
export interface StripeCustomerDeletionsTable {
  customerId: string;
  requestedAt: Generated<Date>;
  attempts: Generated<number>;
  nextAttemptAt: Generated<Date>;
  lastError: string | null;
}
