// The SQL of sign-in sessions, refresh tokens and one-time codes. No rules live here.
import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';

import { preparedStatement } from '../../db/prepared-statements';
import type { Database, OneTimeCodePurpose, SignInMethod } from '../../db/schema';

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Opens a session with its first refresh token, in one statement (atomic by itself, no
 * transaction to open and commit), prepared (db/prepared-statements.ts): every sign-in runs it.
 * With `credentialVersion`, only while the account's credentials are still those the caller
 * checked: a sign-in whose password check overlapped a reset gets nothing (undefined).
 */
const OPEN_SESSION_SQL = preparedStatement(
  'open_session',
  `with account as (
    select id from users where id = $1 and ($2::int is null or credential_version = $2::int)
  ), session as (
    insert into auth_sessions (user_id, expires_at, sign_in_method, device_label)
    select id, $3::timestamptz, $4::text, $5::text from account
    returning id, expires_at
  ), token as (
    insert into refresh_tokens (session_id, token_hash) select id, $6 from session
  )
  select id, expires_at from session`,
);

export async function openSession(
  db: Executor,
  session: {
    userId: string;
    expiresAt: Date;
    credentialVersion?: number;
    signInMethod: SignInMethod;
    deviceLabel: string;
    refreshTokenHash: string;
  },
) {
  const result = await db.executeQuery<{ id: string; expiresAt: Date }>(
    CompiledQuery.raw(OPEN_SESSION_SQL, [
      session.userId,
      session.credentialVersion ?? null,
      session.expiresAt,
      session.signInMethod,
      session.deviceLabel,
      session.refreshTokenHash,
    ]),
  );
  return result.rows[0];
}

/**
 * The account behind a live session: the check every signed-in call makes. Its SQL is written
 * once here rather than built and compiled by Kysely on each call, and it is a prepared statement
 * (db/prepared-statements.ts): PostgreSQL plans it once per connection.
 */
const SIGNED_IN_ACCOUNT_SQL = preparedStatement(
  'signed_in_account',
  `select u.id, u.email, u.subscription_end_date, u.password_hash is not null as has_password
  from auth_sessions s join users u on u.id = s.user_id
  where s.id = $1 and s.user_id = $2 and s.revoked_at is null and s.expires_at > now()`,
);

export async function findSignedInAccount(
  db: Executor,
  claims: { userId: string; sessionId: string },
) {
  // Kysely's CamelCasePlugin names the columns as below (subscriptionEndDate, hasPassword).
  const result = await db.executeQuery<{
    id: string;
    email: string;
    subscriptionEndDate: Date | null;
    hasPassword: boolean;
  }>(CompiledQuery.raw(SIGNED_IN_ACCOUNT_SQL, [claims.sessionId, claims.userId]));
  return result.rows[0];
}

/** A session that can still be used: not revoked, not expired. */
export function findLiveSession(db: Executor, sessionId: string) {
  return db
    .selectFrom('authSessions')
    .select(['id', 'userId', 'createdAt', 'expiresAt'])
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

/** The member's sessions still open, last used first. */
export function listLiveSessions(db: Executor, userId: string) {
  return db
    .selectFrom('authSessions')
    .select(['id', 'createdAt', 'lastUsedAt', 'deviceLabel', 'signInMethod'])
    .where('userId', '=', userId)
    .where('revokedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .orderBy('lastUsedAt', 'desc')
    .orderBy('createdAt', 'desc')
    .execute();
}

/** Ends one of the member's open sessions; false when he has no such open session. */
export async function revokeSessionOfUser(
  db: Executor,
  userId: string,
  sessionId: string,
  reason: string,
): Promise<boolean> {
  const result = await db
    .updateTable('authSessions')
    .set({ revokedAt: sql<Date>`now()`, revokedReason: reason })
    .where('id', '=', sessionId)
    .where('userId', '=', userId)
    .where('revokedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function markSessionUsed(db: Executor, sessionId: string): Promise<void> {
  await db
    .updateTable('authSessions')
    .set({ lastUsedAt: sql<Date>`now()` })
    .where('id', '=', sessionId)
    .execute();
}

/**
 * Deletes sessions (and, by cascade, their refresh tokens) that ended, by revocation or
 * expiry, before `endedBefore`; the number deleted.
 */
export async function deleteEndedSessions(db: Executor, endedBefore: Date): Promise<number> {
  const result = await db
    .deleteFrom('authSessions')
    .where(sql<Date>`coalesce(revoked_at, expires_at)`, '<', endedBefore)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
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

/** Whether the token with this hash has been exchanged for its own successor already. */
export async function isRefreshTokenRotated(db: Executor, tokenHash: string): Promise<boolean> {
  const token = await db
    .selectFrom('refreshTokens')
    .select('rotatedAt')
    .where('tokenHash', '=', tokenHash)
    .executeTakeFirst();
  return token?.rotatedAt !== null && token?.rotatedAt !== undefined;
}

export function findSessionIdByRefreshTokenHash(db: Executor, tokenHash: string) {
  return db
    .selectFrom('refreshTokens')
    .select('sessionId')
    .where('tokenHash', '=', tokenHash)
    .executeTakeFirst();
}

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
