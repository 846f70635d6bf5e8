// The SQL of email-change undo windows: the "this wasn't me" codes of addresses an account moved
// away from, and the addresses they hold (ADR 016). No rules live here.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Whether an address is held for its former owner: an account moved away from it, and the
 * "this wasn't me" link mailed to it is still open. Nobody else may take the address meanwhile,
 * or the owner could not get it back.
 */
export async function isAddressHeldForUndo(db: Executor, email: string): Promise<boolean> {
  const held = await db
    .selectFrom('oneTimeCodes')
    .innerJoin('users', 'users.id', 'oneTimeCodes.userId')
    .select('oneTimeCodes.id')
    .where('oneTimeCodes.purpose', '=', 'email_change_cancel')
    .where('oneTimeCodes.consumedAt', 'is', null)
    .where('oneTimeCodes.expiresAt', '>', sql<Date>`now()`)
    .where(sql<string>`lower(one_time_codes.email)`, '=', sql<string>`lower(${email})`)
    .where(sql<string>`lower(users.email)`, '!=', sql<string>`lower(${email})`)
    .executeTakeFirst();
  return held !== undefined;
}

/**
 * The account's open "this wasn't me" codes for addresses it no longer has: the addresses it
 * moved away from that can still take it back, each with the first time one was issued for it
 * (what ranks it, ADR 016) and until when it works.
 */
export function listUndoWindows(db: Executor, userId: string) {
  return db
    .selectFrom('oneTimeCodes')
    .innerJoin('users', 'users.id', 'oneTimeCodes.userId')
    .select([
      sql<string>`min(one_time_codes.email)`.as('email'),
      sql<Date>`min(one_time_codes.created_at)`.as('issuedAt'),
      sql<Date>`max(one_time_codes.expires_at)`.as('expiresAt'),
    ])
    .where('oneTimeCodes.userId', '=', userId)
    .where('oneTimeCodes.purpose', '=', 'email_change_cancel')
    .where('oneTimeCodes.consumedAt', 'is', null)
    .where('oneTimeCodes.expiresAt', '>', sql<Date>`now()`)
    .where(sql<string>`lower(one_time_codes.email)`, '!=', sql<string>`lower(users.email)`)
    .groupBy(sql`lower(one_time_codes.email)`)
    .orderBy(sql`min(one_time_codes.created_at)`)
    .execute();
}

/**
 * A second "this wasn't me" code for the address an open one protects, ranked and expiring as
 * that one (same issue and expiry times): the notice of a later change carries it.
 */
export async function reissueUndoCode(
  db: Executor,
  code: { userId: string; email: string; codeHash: string; requestedEmail: string },
): Promise<void> {
  await db
    .insertInto('oneTimeCodes')
    .columns([
      'userId',
      'purpose',
      'email',
      'codeHash',
      'requestedEmail',
      'credentialVersion',
      'createdAt',
      'expiresAt',
    ])
    .expression((eb) =>
      eb
        .selectFrom('oneTimeCodes')
        .select([
          'userId',
          'purpose',
          'email',
          eb.val(code.codeHash).as('codeHash'),
          eb.val(code.requestedEmail).as('requestedEmail'),
          'credentialVersion',
          'createdAt',
          'expiresAt',
        ])
        .where('userId', '=', code.userId)
        .where('purpose', '=', 'email_change_cancel')
        .where('consumedAt', 'is', null)
        .where('expiresAt', '>', sql<Date>`now()`)
        .where(sql<string>`lower(email)`, '=', sql<string>`lower(${code.email})`)
        .orderBy('createdAt')
        .limit(1),
    )
    .execute();
}

/**
 * Voids the account's open "this wasn't me" codes issued at or after the one just used (its
 * copies included): a link outranks every link issued after it, never one issued before.
 */
export async function voidUndoCodesIssuedSince(
  db: Executor,
  userId: string,
  usedCodeId: string,
): Promise<void> {
  await db
    .updateTable('oneTimeCodes')
    .set({ consumedAt: sql<Date>`now()` })
    .where('userId', '=', userId)
    .where('purpose', '=', 'email_change_cancel')
    .where('consumedAt', 'is', null)
    .where(
      'createdAt',
      '>=',
      sql<Date>`(select created_at from one_time_codes where id = ${usedCodeId})`,
    )
    .execute();
}

/**
 * Closes the undo windows of completed changes (codes for addresses the account no longer has)
 * asked for at least `minSessionAgeDays` after the session `sessionId` was signed in; the number
 * of codes voided.
 */
export async function closeUndoWindowsOlderSession(
  db: Executor,
  input: { userId: string; sessionId: string; minSessionAgeDays: number },
): Promise<number> {
  const result = await db
    .updateTable('oneTimeCodes')
    .set({ consumedAt: sql<Date>`now()` })
    .where('userId', '=', input.userId)
    .where('purpose', '=', 'email_change_cancel')
    .where('consumedAt', 'is', null)
    .where(
      sql<string>`lower(email)`,
      '!=',
      sql<string>`(select lower(email) from users where id = ${input.userId})`,
    )
    .where(
      'createdAt',
      '>=',
      sql<Date>`(select created_at + make_interval(days => ${input.minSessionAgeDays})
        from auth_sessions where id = ${input.sessionId} and user_id = ${input.userId})`,
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
