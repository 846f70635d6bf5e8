// The SQL of sign-in sessions, refresh tokens and one-time codes. No rules live here.
import { type Kysely, sql, type Transaction } from 'kysely';

import type { Database, OneTimeCodePurpose } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

export function insertSession(db: Executor, session: { userId: string; expiresAt: Date }) {
  return db
    .insertInto('authSessions')
    .values(session)
    .returning(['id', 'expiresAt'])
    .executeTakeFirstOrThrow();
}

/** A session that can still be used: not revoked, not expired. */
export function findLiveSession(db: Executor, sessionId: string) {
  return db
    .selectFrom('authSessions')
    .select(['id', 'userId', 'expiresAt'])
    .where('id', '=', sessionId)
    .where('revokedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

export async function revokeSession(
  db: Executor,
  sessionId: string,
  reason: string,
): Promise<void> {
  await db
    .updateTable('authSessions')
    .set({ revokedAt: sql<Date>`now()`, revokedReason: reason })
    .where('id', '=', sessionId)
    .where('revokedAt', 'is', null)
    .execute();
}

export async function revokeSessionsOfUser(
  db: Executor,
  userId: string,
  options: { reason: string; exceptSessionId?: string },
): Promise<void> {
  let query = db
    .updateTable('authSessions')
    .set({ revokedAt: sql<Date>`now()`, revokedReason: options.reason })
    .where('userId', '=', userId)
    .where('revokedAt', 'is', null);
  if (options.exceptSessionId) query = query.where('id', '!=', options.exceptSessionId);
  await query.execute();
}

export async function insertRefreshToken(
  db: Executor,
  token: { sessionId: string; tokenHash: string },
): Promise<void> {
  await db.insertInto('refreshTokens').values(token).execute();
}

/** The token row, locked until the transaction ends, so concurrent refreshes take turns. */
export function lockRefreshToken(db: Transaction<Database>, tokenHash: string) {
  return db
    .selectFrom('refreshTokens')
    .innerJoin('authSessions', 'authSessions.id', 'refreshTokens.sessionId')
    .select([
      'refreshTokens.id',
      'refreshTokens.sessionId',
      'refreshTokens.rotatedAt',
      'authSessions.userId',
      'authSessions.expiresAt',
      'authSessions.revokedAt',
      sql<boolean>`auth_sessions.expires_at <= now()`.as('isExpired'),
      sql<number>`extract(epoch from (now() - refresh_tokens.rotated_at))::float8`.as(
        'secondsSinceRotation',
      ),
    ])
    .where('refreshTokens.tokenHash', '=', tokenHash)
    .forUpdate('refreshTokens')
    .executeTakeFirst();
}

export async function markRefreshTokenRotated(db: Executor, tokenId: string): Promise<void> {
  await db
    .updateTable('refreshTokens')
    .set({ rotatedAt: sql<Date>`now()` })
    .where('id', '=', tokenId)
    .execute();
}

export function findSessionIdByRefreshTokenHash(db: Executor, tokenHash: string) {
  return db
    .selectFrom('refreshTokens')
    .select('sessionId')
    .where('tokenHash', '=', tokenHash)
    .executeTakeFirst();
}

/** A newer code kills the older ones of the same purpose. */
export async function consumeOpenCodes(
  db: Executor,
  userId: string,
  purpose: OneTimeCodePurpose,
): Promise<void> {
  await db
    .updateTable('oneTimeCodes')
    .set({ consumedAt: sql<Date>`now()` })
    .where('userId', '=', userId)
    .where('purpose', '=', purpose)
    .where('consumedAt', 'is', null)
    .execute();
}

export async function insertCode(
  db: Executor,
  code: {
    userId: string;
    purpose: OneTimeCodePurpose;
    email: string;
    codeHash: string;
    validSeconds: number;
  },
): Promise<void> {
  await db
    .insertInto('oneTimeCodes')
    .values({
      userId: code.userId,
      purpose: code.purpose,
      email: code.email,
      codeHash: code.codeHash,
      expiresAt: sql<Date>`now() + make_interval(secs => ${code.validSeconds})`,
    })
    .execute();
}

/**
 * Uses a code: one UPDATE that only matches an open, unexpired code issued for this email. Two
 * requests with the same code at once cannot both match: the second waits for the first's row
 * lock and then finds it consumed.
 */
export function consumeCode(
  db: Executor,
  code: { purpose: OneTimeCodePurpose; codeHash: string; email: string },
) {
  return db
    .updateTable('oneTimeCodes')
    .set({ consumedAt: sql<Date>`now()` })
    .where('codeHash', '=', code.codeHash)
    .where('purpose', '=', code.purpose)
    .where('consumedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .where(sql<string>`lower(email)`, '=', sql<string>`lower(${code.email})`)
    .returning(['userId', 'email'])
    .executeTakeFirst();
}
