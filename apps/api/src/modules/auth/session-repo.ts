// The SQL of sign-in sessions and their refresh tokens. No rules live here.
import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';

import { preparedStatement } from '../../db/prepared-statements';
import type { Database, SignInMethod } from '../../db/schema';
import { familiarSignInCondition } from './sign-in-event-repo';

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Opens a session with its first refresh token, in one statement (atomic by itself, no
 * transaction to open and commit), prepared (db/prepared-statements.ts): every sign-in runs it.
 * With `credentialVersion`, only while the account's credentials are still those the caller
 * checked: a sign-in whose password check overlapped a reset gets nothing (undefined).
 */
const OPEN_SESSION = `with account as (
    select id from users where id = $1 and ($2::int is null or credential_version = $2::int)
  ), session as (
    insert into auth_sessions (user_id, expires_at, sign_in_method, device_label, second_factor_at)
    select id, $3::timestamptz, $4::text, $5::text, $7::timestamptz
    from account
    returning id, expires_at
  ), token as (
    insert into refresh_tokens (session_id, token_hash) select id, $6 from session
  )`;

const OPEN_SESSION_SQL = preparedStatement(
  'open_session',
  `${OPEN_SESSION}
  select id, expires_at, false as is_sign_in_recorded from session`,
);

/**
 * The same, and the sign-in's event in the same statement when it needs no notice (the usual
 * sign-in, from a familiar device and network): one round trip to the database fewer for each
 * sign-in, while hashing threads wait for the next one (npm run bench, issue 30).
 */
const OPEN_SESSION_RECORDING_SQL = preparedStatement(
  'open_session_recording',
  `${OPEN_SESSION}, event as (
    insert into sign_in_events (user_id, method, outcome, device_label, client_address, network)
    select $1::uuid, $4::text, 'success', $5::text, $8::text, $9::text
    from session
    where ${familiarSignInCondition({ userId: '$1', deviceLabel: '$5', network: '$9', withinDays: '$10' })}
    returning 1
  )
  select id, expires_at, exists (select 1 from event) as is_sign_in_recorded from session`,
);

/** Where a sign-in came from, for its event: recorded with the session if it needs no notice. */
export interface SignInToRecord {
  clientAddress: string;
  network: string;
  /** A device and network the account signed in from within this many days needs no notice. */
  familiarWithinDays: number;
}

export async function openSession(
  db: Executor,
  session: {
    userId: string;
    expiresAt: Date;
    credentialVersion?: number;
    signInMethod: SignInMethod;
    provedSecondFactor: boolean;
    deviceLabel: string;
    refreshTokenHash: string;
  },
  signIn?: SignInToRecord,
) {
  const parameters = [
    session.userId,
    session.credentialVersion ?? null,
    session.expiresAt,
    session.signInMethod,
    session.deviceLabel,
    session.refreshTokenHash,
    // The server's clock, as every check of it (the desk's 12 hours) reads the server's.
    session.provedSecondFactor ? new Date() : null,
  ];
  // Kysely's CamelCasePlugin names the columns as below.
  const result = await db.executeQuery<{ id: string; expiresAt: Date; isSignInRecorded: boolean }>(
    signIn
      ? CompiledQuery.raw(OPEN_SESSION_RECORDING_SQL, [
          ...parameters,
          signIn.clientAddress,
          signIn.network,
          signIn.familiarWithinDays,
        ])
      : CompiledQuery.raw(OPEN_SESSION_SQL, parameters),
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
  `select u.id, u.email, u.subscription_end_date, u.password_hash is not null as has_password,
    u.locale,
    exists (select 1 from two_step_authenticators t
      where t.user_id = u.id and t.confirmed_at is not null) as two_step_enabled
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
    twoStepEnabled: boolean;
    locale: string | null;
  }>(CompiledQuery.raw(SIGNED_IN_ACCOUNT_SQL, [claims.sessionId, claims.userId]));
  return result.rows[0];
}

/**
 * What a password sign-in needs of an account, in one prepared statement: its row (looked up by
 * address, whatever its case) and whether its two-step sign-in is on, as the two-step module
 * defines it (a confirmed authenticator; findSignedInAccount reads it the same way). A sign-in's
 * statements are most of its event loop's time (npm run bench, issue 30).
 */
const SIGN_IN_ACCOUNT_SQL = preparedStatement(
  'sign_in_account',
  `select u.id, u.password_hash, u.credential_version,
    exists (select 1 from two_step_authenticators t
      where t.user_id = u.id and t.confirmed_at is not null) as two_step_on
  from users u where lower(u.email) = lower($1)`,
);

export async function findSignInAccount(db: Executor, email: string) {
  // Kysely's CamelCasePlugin names the columns as below.
  const result = await db.executeQuery<{
    id: string;
    passwordHash: string | null;
    credentialVersion: number;
    twoStepOn: boolean;
  }>(CompiledQuery.raw(SIGN_IN_ACCOUNT_SQL, [email]));
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
): Promise<number> {
  let query = db
    .updateTable('authSessions')
    .set({ revokedAt: sql<Date>`now()`, revokedReason: options.reason })
    .where('userId', '=', userId)
    .where('revokedAt', 'is', null);
  if (options.exceptSessionId) query = query.where('id', '!=', options.exceptSessionId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
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
 * Deletes up to `limit` sessions (and, by cascade, their refresh tokens) that ended, by
 * revocation or expiry, before `endedBefore`: how many were due (at most `limit`) and how many
 * this deleted (fewer when some went meanwhile). A bounded batch keeps the
 * statement's row locks short on a table of millions (session-pruning.ts runs batches until
 * one comes back short). Oldest first, in the order of the auth_sessions_ended index: the index
 * then hands over the first `limit` and stops, and as it walks it marks the entries of the rows
 * earlier batches deleted (dead until vacuum) so the next batch skips them; unordered, PostgreSQL
 * may gather every due row in a bitmap and revisit the dead ones at each batch (one batch of a
 * run at scale took 764 ms that way, 33 ms ordered: docs/benchmarks/scale.md).
 *
 * Read first, without a lock (statements of READ COMMITTED: row locks come with the DELETE): the
 * sessions and their refresh tokens, then the DELETE of those (still ended: an ended session
 * never starts again). A session that ended a month ago is seldom in memory, and a read from a
 * busy disk took up to a second at scale (28 November); done inside the DELETE, its row locks
 * were held all that time. Read before, the DELETE finds the pages in PostgreSQL's buffers.
 */
export async function deleteEndedSessions(
  db: Executor,
  endedBefore: Date,
  limit: number,
): Promise<{ due: number; deleted: number }> {
  const ended = sql<Date>`coalesce(revoked_at, expires_at)`;
  const due = await db
    .selectFrom('authSessions')
    .select('id')
    .where(ended, '<', endedBefore)
    .orderBy(ended)
    .limit(limit)
    .execute();
  if (due.length === 0) return { due: 0, deleted: 0 };
  const ids = due.map((session) => session.id);
  // What the DELETE will read: each session by its primary key, and its refresh tokens by
  // theirs (created_at is in no index, so the token rows themselves are read, as the cascade
  // will; counted, not sent: a session used for a month has thousands).
  await db
    .selectFrom('authSessions')
    .leftJoin('refreshTokens', 'refreshTokens.sessionId', 'authSessions.id')
    .select((eb) => eb.fn.count('refreshTokens.createdAt').as('tokens'))
    .where('authSessions.id', 'in', ids)
    .execute();
  const result = await db
    .deleteFrom('authSessions')
    .where('id', 'in', ids)
    .where(ended, '<', endedBefore)
    .executeTakeFirst();
  return { due: due.length, deleted: Number(result.numDeletedRows) };
}

export async function insertRefreshToken(
  db: Executor,
  token: { sessionId: string; tokenHash: string },
): Promise<void> {
  await db.insertInto('refreshTokens').values(token).execute();
}

/** A refresh token as the database knows it: its session and the SHA-256 of its secret. */
export interface RefreshTokenKey {
  sessionId: string;
  tokenHash: string;
}

/**
 * The token row, locked until the transaction ends, so concurrent refreshes take turns. Found
 * through its session (refresh_tokens_session_token, migration 0029): the hash alone is random,
 * and an index of it alone put every new token on a random leaf.
 */
export function lockRefreshToken(db: Transaction<Database>, token: RefreshTokenKey) {
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
    .where('refreshTokens.sessionId', '=', token.sessionId)
    .where('refreshTokens.tokenHash', '=', token.tokenHash)
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

/** The token's row (undefined when the database does not know it): when it was rotated, if it was. */
export function findRefreshToken(db: Executor, token: RefreshTokenKey) {
  return db
    .selectFrom('refreshTokens')
    .select('rotatedAt')
    .where('sessionId', '=', token.sessionId)
    .where('tokenHash', '=', token.tokenHash)
    .executeTakeFirst();
}

/**
 * The session's owner proved a second factor in it just now (the support desk's step-up):
 * answers the time, or undefined when the session is no longer live.
 */
export async function markSecondFactorProved(
  db: Executor,
  sessionId: string,
): Promise<Date | undefined> {
  const row = await db
    .updateTable('authSessions')
    .set({ secondFactorAt: new Date() })
    .where('id', '=', sessionId)
    .where('revokedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .returning('secondFactorAt')
    .executeTakeFirst();
  return row?.secondFactorAt ?? undefined;
}
