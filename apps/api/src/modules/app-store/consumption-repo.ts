// The SQL of the answers owed to Apple's refund requests (migrations/0022), and the figures they
// are made of. No rules live here.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

export interface ConsumptionReportRow {
  notificationUuid: string;
  userId: string;
  environment: string;
  transactionId: string;
  originalTransactionId: string;
  reason: string | null;
  requestedAt: Date;
  giveUpAt: Date;
  attempts: number;
}

/** Owes Apple an answer, unless this notification already did (true when new). */
export async function enqueueConsumptionReport(
  db: Transaction<Database>,
  report: Omit<ConsumptionReportRow, 'attempts'> & { nextAttemptAt: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('appStoreConsumptionReports')
    .values(report)
    .onConflict((conflict) => conflict.column('notificationUuid').doNothing())
    .returning('notificationUuid')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Takes up to `limit` open reports due at `now`, for `leaseSeconds`: another process (or this
 * one, should it stop mid-way) takes them again only once that has passed. Counts the attempt.
 */
export function claimDueConsumptionReports(
  db: Executor,
  claim: { now: Date; leaseSeconds: number; limit: number },
): Promise<ConsumptionReportRow[]> {
  const leaseEnds = new Date(claim.now.getTime() + claim.leaseSeconds * 1000);
  return db
    .updateTable('appStoreConsumptionReports')
    .set({ nextAttemptAt: leaseEnds, attempts: sql<number>`attempts + 1` })
    .where(
      'notificationUuid',
      'in',
      db
        .selectFrom('appStoreConsumptionReports')
        .select('notificationUuid')
        .where('closedAt', 'is', null)
        .where('nextAttemptAt', '<=', claim.now)
        .orderBy('nextAttemptAt')
        .limit(claim.limit)
        .forUpdate()
        .skipLocked(),
    )
    .where('closedAt', 'is', null)
    .returning([
      'notificationUuid',
      'userId',
      'environment',
      'transactionId',
      'originalTransactionId',
      'reason',
      'requestedAt',
      'giveUpAt',
      'attempts',
    ])
    .execute();
}

/** Nothing more to do for this report: sent, consent withdrawn, or given up. */
export async function closeConsumptionReport(
  db: Executor,
  close: { notificationUuid: string; outcome: string; at: Date; sentRequest?: string },
): Promise<void> {
  await db
    .updateTable('appStoreConsumptionReports')
    .set({
      outcome: close.outcome,
      closedAt: close.at,
      ...(close.sentRequest === undefined ? {} : { sentRequest: close.sentRequest }),
    })
    .where('notificationUuid', '=', close.notificationUuid)
    .execute();
}

export async function recordConsumptionFailure(
  db: Executor,
  failure: { notificationUuid: string; error: string; nextAttemptAt: Date },
): Promise<void> {
  await db
    .updateTable('appStoreConsumptionReports')
    .set({ lastError: failure.error.slice(0, 500), nextAttemptAt: failure.nextAttemptAt })
    .where('notificationUuid', '=', failure.notificationUuid)
    .execute();
}

/**
 * What the books know of the member and of the transaction Apple asks about: its period (the
 * ledger's, as the purchase keeps it) if it is his, when his account was made, and how many of
 * his other purchases were taken back by a refund or a lost dispute.
 */
export async function readConsumptionFacts(
  db: Executor,
  report: Pick<ConsumptionReportRow, 'userId' | 'environment' | 'transactionId'>,
) {
  const purchase = await db
    .selectFrom('purchases')
    .select(['id', 'startsAt', 'expiresAt', 'revokedAt'])
    .where('provider', '=', 'Apple')
    .where('environment', '=', report.environment)
    .where('providerPaymentId', '=', report.transactionId)
    .where('userId', '=', report.userId)
    .executeTakeFirst();
  const account = await db
    .selectFrom('users')
    .select('createdAt')
    .where('id', '=', report.userId)
    .executeTakeFirst();
  const refunds = await db
    .selectFrom('purchases')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('userId', '=', report.userId)
    .where('revokedAt', 'is not', null)
    .$if(purchase !== undefined, (query) => query.where('id', '<>', purchase?.id ?? ''))
    .executeTakeFirst();
  return { purchase, accountCreatedAt: account?.createdAt, earlierRefunds: refunds?.count ?? 0 };
}
