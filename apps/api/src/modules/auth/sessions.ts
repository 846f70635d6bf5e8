// Sign-in sessions: opening one (password, Google, Apple), renewing and ending it, the list of
// where a member is signed in, and securing an account when its credentials change.
import type { Transaction } from 'kysely';

import { type SessionItem, type TokenPair } from '@kegel/contract';

import type { Database, SignInMethod } from '../../db/schema';
import { isUuid } from '../../db/ids';
import { AppError } from '../../errors';
import type { Caller } from '../../security/client-address';
import { deviceLabel } from '../../security/device-label';
import { hashSecret, randomSecret } from '../../security/keys';
import { HashingBusyError } from '../../security/password-hasher';
import { createTurns } from '../../security/turns';
import { usersRepo } from '../users';
import type { CredentialChecks } from './credential-checks';
import * as codeRepo from './code-repo';
import * as sessionRepo from './session-repo';
import {
  type AuthServiceDependencies,
  messages,
  REFRESH_GRACE_SECONDS,
  rateLimitRules,
  SESSION_LIFETIME_SECONDS,
} from './rules';

export type Sessions = ReturnType<typeof createSessions>;

export function createSessions(deps: AuthServiceDependencies, checks: CredentialChecks) {
  const { db, tokens, rateLimiter } = deps;
  // Password sign-ins take turns from their first query to their last. Only as many hashes as
  // there are hashing threads run at once, so 200 sign-ins arriving together gain nothing by all
  // looking their accounts up and passing the rate limits at once: that burst queued ahead of
  // every other member's request (npm run bench, the storm: the profile's p97.5 ratio fell from
  // about 1.5 to 1.3). A few more than the threads keep the threads fed meanwhile. A sign-in
  // whose client has gone while it waited is dropped unrun (the route's `callerLeft`).
  const signInTurns = createTurns({
    atOnce: deps.passwordSignInsAtOnce,
    maxWaiting: 200,
    whenFull: () => new HashingBusyError(),
  });

  async function issueTokenPair(
    userId: string,
    sessionId: string,
    refreshSecret: string,
    expiresAt: Date,
  ): Promise<TokenPair> {
    const [accessToken, refresh] = await Promise.all([
      tokens.issueAccessToken({ userId, sessionId }),
      tokens.issueRefreshToken({ sessionId, expiresAt, secret: refreshSecret }),
    ]);
    return { accessToken, refreshToken: refresh.token };
  }

  /**
   * Opens a sign-in session for a user: password, Google and Apple sign-ins all end here. A
   * password sign-in passes the credential version it checked the password at: if a reset or
   * change landed meanwhile, no session opens and the answer is the wrong-password one.
   */
  async function startSession(
    userId: string,
    how: { method: SignInMethod; caller: Caller; credentialVersion?: number },
  ): Promise<TokenPair> {
    const secret = randomSecret();
    const session = await sessionRepo.openSession(db, {
      userId,
      expiresAt: new Date(Date.now() + SESSION_LIFETIME_SECONDS * 1000),
      credentialVersion: how.credentialVersion,
      signInMethod: how.method,
      deviceLabel: deviceLabel(how.caller.userAgent),
      refreshTokenHash: hashSecret(secret),
    });
    if (!session) throw new AppError(401, messages.invalidCredentials);
    return issueTokenPair(userId, session.id, secret, session.expiresAt);
  }

  /**
   * The account's credentials just changed hands or form (new password, new email, the owner
   * taking it back, a provider proving the address): every reset and email-change code issued
   * before dies, and every session but `exceptSessionId` ends. Inside the caller's transaction.
   * Answers the account's current address, where any notice about it goes.
   */
  async function secureAccount(
    transaction: Transaction<Database>,
    userId: string,
    options: { reason: string; exceptSessionId?: string },
  ): Promise<{ email: string; credentialVersion: number }> {
    const account = await usersRepo.raiseCredentialVersion(transaction, userId);
    await codeRepo.voidOpenCodes(transaction, userId, ['password_reset', 'email_change']);
    await sessionRepo.revokeSessionsOfUser(transaction, userId, options);
    return account;
  }

  return {
    startSession,
    secureAccount,
    /** Password sign-ins under way and waiting their turn (the metrics). */
    signInLoad: () => signInTurns.load(),

    /**
     * Same status, body and work for a wrong password and an unknown email: an unknown email is
     * verified against a decoy hash and counts as a failure like any other.
     */
    login(
      input: { email: string; password: string },
      caller: Caller,
      /** Aborts when the caller has gone: a sign-in still waiting for its turn is then dropped. */
      callerLeft?: AbortSignal,
    ): Promise<TokenPair> {
      return signInTurns.take(async () => {
        const user = await usersRepo.findUserByEmail(db, input.email);
        const account = { key: input.email.toLowerCase(), user };
        const check = await checks.checkPassword(
          account,
          input.password,
          caller,
          messages.tooManyAttempts,
        );
        if (!user || check !== 'valid') throw new AppError(401, messages.invalidCredentials);
        return startSession(user.id, {
          method: 'password',
          caller,
          credentialVersion: user.credentialVersion,
        });
      }, callerLeft);
    },

    /**
     * Rotates a refresh token. The row is locked, so concurrent refreshes with one token take
     * turns: the first rotates, the others (within the grace) get the same successor. A rotated
     * token presented after the grace means it was copied: the whole session is revoked.
     */
    async refresh(refreshToken: string): Promise<TokenPair> {
      const claims = await tokens.verifyRefreshToken(refreshToken).catch(() => {
        throw new AppError(401, messages.sessionEnded);
      });
      const renewals = await rateLimiter.hit(rateLimitRules.refreshesPerSession, claims.sessionId);
      if (!renewals.isAllowed) {
        // Refused before the token is spent: the client keeps it and retries later.
        throw new AppError(429, messages.tooManyRequests, renewals.retryAfterSeconds);
      }
      const successorSecret = tokens.successorSecret(claims.secret);
      const outcome = await db.transaction().execute(async (transaction) => {
        const row = await sessionRepo.lockRefreshToken(transaction, hashSecret(claims.secret));
        if (!row || row.sessionId !== claims.sessionId) return { kind: 'unknown' as const };
        if (row.revokedAt || row.isExpired) return { kind: 'ended' as const };
        if (row.rotatedAt === null) {
          await sessionRepo.markRefreshTokenRotated(transaction, row.id);
          await sessionRepo.insertRefreshToken(transaction, {
            sessionId: row.sessionId,
            tokenHash: hashSecret(successorSecret),
          });
          await sessionRepo.markSessionUsed(transaction, row.sessionId);
          return { kind: 'rotated' as const, userId: row.userId, expiresAt: row.expiresAt };
        }
        // Only the direct predecessor of the current token gets the grace: a token two or more
        // rotations old is a copy, whoever shows it.
        const isPredecessor = !(await sessionRepo.isRefreshTokenRotated(
          transaction,
          hashSecret(successorSecret),
        ));
        if (isPredecessor && row.secondsSinceRotation <= REFRESH_GRACE_SECONDS) {
          return { kind: 'rotated' as const, userId: row.userId, expiresAt: row.expiresAt };
        }
        await sessionRepo.revokeSession(transaction, row.sessionId, 'refresh token reused');
        return { kind: 'reused' as const };
      });
      if (outcome.kind !== 'rotated') throw new AppError(401, messages.sessionEnded);
      return issueTokenPair(outcome.userId, claims.sessionId, successorSecret, outcome.expiresAt);
    },

    /**
     * Ends the session the refresh token belongs to; idempotent for a token of ours whose session
     * has ended already. What is not a live token of ours (malformed, forged, expired) is refused
     * with 401, as by every other call, rather than acknowledged as if a session had ended.
     */
    async logout(refreshToken: string): Promise<void> {
      const { secret } = await tokens.verifyRefreshToken(refreshToken).catch(() => {
        throw new AppError(401, messages.sessionEnded);
      });
      const token = await sessionRepo.findSessionIdByRefreshTokenHash(db, hashSecret(secret));
      if (token) await sessionRepo.revokeSession(db, token.sessionId, 'logout');
    },

    /** Where the member is signed in: his open sessions, last used first, his own marked. */
    async listSessions(caller: { userId: string; sessionId: string }): Promise<SessionItem[]> {
      const sessions = await sessionRepo.listLiveSessions(db, caller.userId);
      return sessions.map((session) => ({
        id: session.id,
        createdAt: session.createdAt.toISOString(),
        lastUsedAt: session.lastUsedAt.toISOString(),
        device: session.deviceLabel ?? 'Unknown device',
        method: session.signInMethod,
        current: session.id === caller.sessionId,
      }));
    },

    /** Signs one of the member's sessions out; 404 for a session that is not his (or has ended). */
    async endSession(caller: { userId: string }, sessionId: string): Promise<void> {
      const isEnded = isUuid(sessionId)
        ? await sessionRepo.revokeSessionOfUser(
            db,
            caller.userId,
            sessionId,
            'signed out by the member',
          )
        : false;
      if (!isEnded) throw new AppError(404, messages.sessionNotFound);
    },

    /** Signs every session of the member out but the one asking. */
    async endOtherSessions(caller: { userId: string; sessionId: string }): Promise<void> {
      await sessionRepo.revokeSessionsOfUser(db, caller.userId, {
        reason: 'signed out of other devices',
        exceptSessionId: caller.sessionId,
      });
    },
  };
}
