// Withdrawing mail from the outbox before it leaves, when what it tells went stale (a reminder
// of a premium end that moved): the outbox's other way, besides `uselessAfter`, to drop a mail
// that would only mislead.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database } from '../db/schema';

/**
 * Withdraws mail not sent yet whose news went stale (a reminder of a premium end that moved):
 * marked failed with `reason`, its payload erased, never tried again. One being sent at this very
 * moment goes if the mail server takes it (it left), and stays withdrawn if not.
 */
export async function withdrawUnsentMail(
  db: Kysely<Database> | Transaction<Database>,
  ids: readonly string[],
  reason: string,
): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('outboxEmails')
    .set({
      failedAt: sql<Date>`now()`,
      lastError: `withdrawn: ${reason}`,
      encryptedPayload: null,
      lockedUntil: null,
    })
    .where('id', 'in', ids)
    .where('sentAt', 'is', null)
    .where('failedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
