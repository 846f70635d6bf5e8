// A session's token pair: issued when it opens, renewed by rotating its refresh token, and given
// up at sign-out (docs/decisions/003-session-tokens-and-rotation.md).
import { type TokenPair } from '@kegel/contract';

import { AppError } from '../../errors';
import { hashSecret } from '../../security/keys';
import type { SessionTokens } from '../../security/session-tokens';
import * as sessionRepo from './session-repo';
import {
  type AuthServiceDependencies,
  messages,
  REFRESH_GRACE_SECONDS,
  rateLimitRules,
} from './rules';

type RenewalDependencies = Pick<AuthServiceDependencies, 'db' | 'tokens' | 'rateLimiter'>;

export async function issueTokenPair(
  tokens: SessionTokens,
  session: { userId: string; sessionId: string; refreshSecret: string; expiresAt: Date },
): Promise<TokenPair> {
  const { userId, sessionId, refreshSecret, expiresAt } = session;
  const [accessToken, refresh] = await Promise.all([
    tokens.issueAccessToken({ userId, sessionId }),
    tokens.issueRefreshToken({ sessionId, expiresAt, secret: refreshSecret }),
  ]);
  return { accessToken, refreshToken: refresh.token };
}

/**
 * Rotates a refresh token. The row is locked, so concurrent refreshes with one token take
 * turns: the first rotates, the others (within the grace) get the same successor. A rotated
 * token presented after the grace means it was copied: the whole session is revoked.
 */
export async function refresh(deps: RenewalDependencies, refreshToken: string): Promise<TokenPair> {
  const { db, tokens, rateLimiter } = deps;
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
    const row = await sessionRepo.lockRefreshToken(transaction, {
      sessionId: claims.sessionId,
      tokenHash: hashSecret(claims.secret),
    });
    if (!row) return { kind: 'unknown' as const };
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
    const successor = await sessionRepo.findRefreshToken(transaction, {
      sessionId: row.sessionId,
      tokenHash: hashSecret(successorSecret),
    });
    const isPredecessor = !successor?.rotatedAt;
    if (isPredecessor && row.secondsSinceRotation <= REFRESH_GRACE_SECONDS) {
      return { kind: 'rotated' as const, userId: row.userId, expiresAt: row.expiresAt };
    }
    await sessionRepo.revokeSession(transaction, row.sessionId, 'refresh token reused');
    return { kind: 'reused' as const };
  });
  if (outcome.kind !== 'rotated') throw new AppError(401, messages.sessionEnded);
  return issueTokenPair(tokens, {
    userId: outcome.userId,
    sessionId: claims.sessionId,
    refreshSecret: successorSecret,
    expiresAt: outcome.expiresAt,
  });
}

/**
 * Ends the session the refresh token belongs to; idempotent for a token of ours whose session
 * has ended already. What is not a live token of ours (malformed, forged, expired) is refused
 * with 401, as by every other call, rather than acknowledged as if a session had ended.
 */
export async function logout(
  deps: Pick<AuthServiceDependencies, 'db' | 'tokens'>,
  refreshToken: string,
): Promise<void> {
  const { sessionId, secret } = await deps.tokens.verifyRefreshToken(refreshToken).catch(() => {
    throw new AppError(401, messages.sessionEnded);
  });
  const token = { sessionId, tokenHash: hashSecret(secret) };
  if (await sessionRepo.findRefreshToken(deps.db, token)) {
    await sessionRepo.revokeSession(deps.db, sessionId, 'logout');
  }
}
