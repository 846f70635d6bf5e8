// The SQL of the notification history cursors (notification-recovery.ts). No rules live here.
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';

export interface HistoryCursor {
  source: string;
  /** The history was read through up to here; null before the first complete read. */
  readUntil: Date | null;
  /** A walk through the pages under way: its window and the next page's token. */
  windowStart: Date | null;
  windowEnd: Date | null;
  paginationToken: string | null;
}

export function findHistoryCursor(
  db: Kysely<Database>,
  source: string,
): Promise<HistoryCursor | undefined> {
  return db
    .selectFrom('appStoreHistoryCursors')
    .select(['source', 'readUntil', 'windowStart', 'windowEnd', 'paginationToken'])
    .where('source', '=', source)
    .executeTakeFirst();
}

export async function saveHistoryCursor(db: Kysely<Database>, cursor: HistoryCursor) {
  const { readUntil, windowStart, windowEnd, paginationToken } = cursor;
  await db
    .insertInto('appStoreHistoryCursors')
    .values(cursor)
    .onConflict((conflict) =>
      conflict.column('source').doUpdateSet({
        readUntil,
        windowStart,
        windowEnd,
        paginationToken,
        updatedAt: new Date(),
      }),
    )
    .execute();
}
