// The SQL of one-time codes (password reset, email change, and the undo link's code): issuing,
// voiding, finding and using them. No rules live here; the undo windows are undo-repo.ts.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database, OneTimeCodePurpose } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/** Voids the account's open codes of these purposes (a newer code, or a change of credentials). */
export async function voidOpenCodes(
  db: Executor,
  userId: string,
  purposes: readonly OneTimeCodePurpose[],
): Promise<void> {
  await db
    .updateTable('oneTimeCodes')
    .set({ consumedAt: sql<Date>`now()` })
    .where('userId', '=', userId)
    .where('purpose', 'in', purposes)
    .where('consumedAt', 'is', null)
    .execute();
}

/**
 * Issued at the credential version the caller read with the account (see migrations/0007): if
 * the credentials changed since, the code is born dead. Answers when it expires.
 */
export async function insertCode(
  db: Executor,
  code: {
    userId: string;
    purpose: OneTimeCodePurpose;
    email: string;
    codeHash: string;
    validSeconds: number;
    credentialVersion: number;
    requestedEmail?: string;
  },
): Promise<{ expiresAt: Date }> {
  return db
    .insertInto('oneTimeCodes')
    .values({
      userId: code.userId,
      purpose: code.purpose,
      email: code.email,
      codeHash: code.codeHash,
      requestedEmail: code.requestedEmail ?? null,
      credentialVersion: code.credentialVersion,
      expiresAt: sql<Date>`now() + make_interval(secs => ${code.validSeconds})`,
    })
    .returning('expiresAt')
    .executeTakeFirstOrThrow();
}

interface CodeToUse {
  purpose: OneTimeCodePurpose;
  codeHash: string;
  /** The address the code was issued for; cancel codes are used by their code alone. */
  email?: string;
  /** Reset and email-change codes die with any change of the account's credentials. */
  requireCurrentCredentials: boolean;
}

function openCodes(db: Executor, code: CodeToUse) {
  let query = db
    .selectFrom('oneTimeCodes')
    .where('codeHash', '=', code.codeHash)
    .where('purpose', '=', code.purpose)
    .where('consumedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`);
  if (code.email !== undefined) {
    query = query.where(sql<string>`lower(email)`, '=', sql<string>`lower(${code.email})`);
  }
  if (code.requireCurrentCredentials) {
    query = query.where(
      'credentialVersion',
      '=',
      sql<number>`(select credential_version from users where users.id = one_time_codes.user_id)`,
    );
  }
  return query;
}

/** The account of a code that would be accepted now, without using it. */
export function findOpenCode(db: Executor, code: CodeToUse) {
  return openCodes(db, code).select('userId').executeTakeFirst();
}

/**
 * Uses a code: one UPDATE that only matches an open, unexpired code issued for this email. Two
 * requests with the same code at once cannot both match: the second waits for the first's row
 * lock and then finds it consumed.
 */
export function consumeCode(db: Executor, code: CodeToUse) {
  return db
    .updateTable('oneTimeCodes')
    .set({ consumedAt: sql<Date>`now()` })
    .where('id', 'in', openCodes(db, code).select('id'))
    .where('consumedAt', 'is', null)
    .returning(['id', 'userId', 'email', 'requestedEmail', 'createdAt'])
    .executeTakeFirst();
}
