// The rules of every account journey: registration, sign-in, token refresh, logout, password
// reset and change, email change. No HTTP and no SQL here: routes call these functions, repo.ts
// holds the queries, and each multi-step change is one transaction.
import type { Kysely, Transaction } from 'kysely';

import type { TokenPair } from '@kegel/contract';

import type { Database } from '../../db/schema';
import { AppError, isUniqueViolation, SESSION_ENDED_MESSAGE } from '../../errors';
import type { Mailer } from '../../mail/outbox';
import {
  emailChangeConfirmationEmail,
  emailChangeNoticeEmail,
  passwordChangedEmail,
  passwordResetEmail,
} from '../../mail/templates';
import { hashSecret, randomSecret } from '../../security/keys';
import type { PasswordHasher } from '../../security/password-hasher';
import type { RateLimiter, RateLimitRule } from '../../security/rate-limiter';
import { InvalidTokenError, type SessionTokens } from '../../security/session-tokens';
import * as usersRepo from '../users/repo';
import * as repo from './repo';

export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** Two tabs refreshing with the same token at once both get the same successor within this. */
export const REFRESH_GRACE_SECONDS = 10;
export const PASSWORD_RESET_VALID_SECONDS = 60 * 60;
export const EMAIL_CHANGE_VALID_SECONDS = 24 * 60 * 60;

export const rateLimitRules = {
  /** Sign-in attempts for one account since its last success (whatever the client address). */
  loginFailures: { name: 'login-failures', limit: 5, windowSeconds: 15 * 60 },
  /** Reset emails sent to one address. Beyond the cap the answer is the same; no mail goes. */
  resetMails: { name: 'reset-mails', limit: 3, windowSeconds: 60 * 60 },
} satisfies Record<string, RateLimitRule>;

const messages = {
  invalidCredentials: 'Invalid email or password',
  tooManyAttempts: 'Too many failed sign-in attempts. Please try again later.',
  emailTaken: 'An account with this email already exists',
  resetRequested:
    'If an account exists for this email, we have sent it a link to choose a new password.',
  resetLinkInvalid: 'Failed to change password. Link is invalid or has expired.',
  sessionEnded: SESSION_ENDED_MESSAGE,
  wrongCurrentPassword: 'Current password is incorrect',
  noPasswordYet:
    'This account signs in with Google or Apple and has no password yet. Use "Forgot your password?" to set one.',
  sameEmail: 'This is already the email of your account',
  emailInUse: 'This email is already in use by another account',
  emailLinkInvalid: 'This link is invalid or has expired. Please, try again.',
} as const;

export interface AuthServiceDependencies {
  db: Kysely<Database>;
  hasher: PasswordHasher;
  tokens: SessionTokens;
  rateLimiter: RateLimiter;
  mail: Mailer;
  publicUrl: string;
  supportEmail: string;
}

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(deps: AuthServiceDependencies) {
  const { db, hasher, tokens, rateLimiter } = deps;

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

  /** Opens a sign-in session for a user: password, Google and Apple sign-ins all end here. */
  async function startSession(userId: string): Promise<TokenPair> {
    const secret = randomSecret();
    const session = await db.transaction().execute(async (transaction) => {
      const created = await repo.insertSession(transaction, {
        userId,
        expiresAt: new Date(Date.now() + SESSION_LIFETIME_SECONDS * 1000),
      });
      await repo.insertRefreshToken(transaction, {
        sessionId: created.id,
        tokenHash: hashSecret(secret),
      });
      return created;
    });
    return issueTokenPair(userId, session.id, secret, session.expiresAt);
  }

  function passwordResetLink(email: string, code: string): string {
    const query = new URLSearchParams({ email, code });
    return `${deps.publicUrl}/account/recover/new?${query.toString()}`;
  }

  function emailChangeLink(newEmail: string, code: string): string {
    const query = new URLSearchParams({ newEmail, code });
    return `${deps.publicUrl}/account/verify-email?${query.toString()}`;
  }

  /**
   * Ends every session of an account and voids its pending email change, inside the caller's
   * transaction: for when someone else has just proven they own the address.
   */
  async function endSessionsAndEmailChange(
    transaction: Transaction<Database>,
    userId: string,
    reason: string,
  ): Promise<void> {
    await repo.revokeSessionsOfUser(transaction, userId, { reason });
    await repo.consumeOpenCodes(transaction, userId, 'email_change');
  }

  return {
    startSession,
    endSessionsAndEmailChange,

    async register(input: {
      email: string;
      password: string;
    }): Promise<{ id: string; email: string }> {
      const passwordHash = await hasher.hash(input.password);
      try {
        return await usersRepo.insertUser(db, { email: input.email, passwordHash });
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError(409, messages.emailTaken);
        throw error;
      }
    },

    /**
     * Same status, body and work for a wrong password and an unknown email: an unknown email is
     * verified against a decoy hash and counts as a failure like any other.
     */
    async login(input: { email: string; password: string }): Promise<TokenPair> {
      const accountKey = input.email.toLowerCase();
      // Counted before checking (atomically, also in Redis), so a burst of parallel guesses
      // cannot slip past the limit; a success clears the count.
      const attempts = await rateLimiter.hit(rateLimitRules.loginFailures, accountKey);
      if (!attempts.isAllowed) {
        throw new AppError(429, messages.tooManyAttempts, attempts.retryAfterSeconds);
      }
      const user = await usersRepo.findUserByEmail(db, input.email);
      const isValid = user?.passwordHash
        ? await hasher.verify(user.passwordHash, input.password)
        : await hasher.verifyAgainstNothing(input.password);
      if (!user || !isValid) throw new AppError(401, messages.invalidCredentials);
      await rateLimiter.reset(rateLimitRules.loginFailures, accountKey);
      return startSession(user.id);
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
      const successorSecret = tokens.successorSecret(claims.secret);
      const outcome = await db.transaction().execute(async (transaction) => {
        const row = await repo.lockRefreshToken(transaction, hashSecret(claims.secret));
        if (!row || row.sessionId !== claims.sessionId) return { kind: 'unknown' as const };
        if (row.revokedAt || row.isExpired) return { kind: 'ended' as const };
        if (row.rotatedAt === null) {
          await repo.markRefreshTokenRotated(transaction, row.id);
          await repo.insertRefreshToken(transaction, {
            sessionId: row.sessionId,
            tokenHash: hashSecret(successorSecret),
          });
          return { kind: 'rotated' as const, userId: row.userId, expiresAt: row.expiresAt };
        }
        if (row.secondsSinceRotation <= REFRESH_GRACE_SECONDS) {
          return { kind: 'rotated' as const, userId: row.userId, expiresAt: row.expiresAt };
        }
        await repo.revokeSession(transaction, row.sessionId, 'refresh token reused');
        return { kind: 'reused' as const };
      });
      if (outcome.kind !== 'rotated') throw new AppError(401, messages.sessionEnded);
      return issueTokenPair(outcome.userId, claims.sessionId, successorSecret, outcome.expiresAt);
    },

    /** Ends the session the refresh token belongs to. Idempotent, and silent about bad tokens. */
    async logout(refreshToken: string): Promise<void> {
      let secret: string;
      try {
        secret = (await tokens.verifyRefreshToken(refreshToken)).secret;
      } catch (error) {
        if (error instanceof InvalidTokenError) return;
        throw error;
      }
      const token = await repo.findSessionIdByRefreshTokenHash(db, hashSecret(secret));
      if (token) await repo.revokeSession(db, token.sessionId, 'logout');
    },

    /** Answers the same whether or not the address has an account. */
    async requestPasswordReset(email: string): Promise<string> {
      const user = await usersRepo.findUserByEmail(db, email);
      if (!user) return messages.resetRequested;
      const sent = await rateLimiter.hit(rateLimitRules.resetMails, user.email.toLowerCase());
      if (!sent.isAllowed) return messages.resetRequested;

      const code = randomSecret();
      await db.transaction().execute(async (transaction) => {
        await repo.consumeOpenCodes(transaction, user.id, 'password_reset');
        await repo.insertCode(transaction, {
          userId: user.id,
          purpose: 'password_reset',
          email: user.email,
          codeHash: hashSecret(code),
          validSeconds: PASSWORD_RESET_VALID_SECONDS,
        });
        await deps.mail.enqueue(transaction, {
          to: user.email,
          template: 'password-reset',
          content: passwordResetEmail({
            link: passwordResetLink(user.email, code),
            validMinutes: PASSWORD_RESET_VALID_SECONDS / 60,
          }),
        });
      });
      return messages.resetRequested;
    },

    async confirmPasswordReset(input: {
      email: string;
      code: string;
      newPassword: string;
    }): Promise<void> {
      const passwordHash = await hasher.hash(input.newPassword);
      const user = await db.transaction().execute(async (transaction) => {
        const used = await repo.consumeCode(transaction, {
          purpose: 'password_reset',
          codeHash: hashSecret(input.code),
          email: input.email,
        });
        if (!used) return undefined;
        await usersRepo.updatePasswordHash(transaction, used.userId, passwordHash);
        // The link reached the owner's inbox: the address is proven.
        await usersRepo.markEmailVerified(transaction, used.userId);
        await repo.revokeSessionsOfUser(transaction, used.userId, { reason: 'password reset' });
        await deps.mail.enqueue(transaction, {
          to: used.email,
          template: 'password-changed',
          content: passwordChangedEmail({ supportEmail: deps.supportEmail }),
        });
        return used;
      });
      if (!user) throw new AppError(400, messages.resetLinkInvalid);
      await rateLimiter.reset(rateLimitRules.loginFailures, user.email.toLowerCase());
    },

    async changePassword(input: {
      userId: string;
      sessionId: string;
      oldPassword: string;
      newPassword: string;
    }): Promise<void> {
      const user = await usersRepo.findUserById(db, input.userId);
      if (!user) throw new AppError(401, messages.sessionEnded);
      if (!user.passwordHash) throw new AppError(400, messages.noPasswordYet);
      if (!(await hasher.verify(user.passwordHash, input.oldPassword))) {
        throw new AppError(400, messages.wrongCurrentPassword);
      }
      const passwordHash = await hasher.hash(input.newPassword);
      await db.transaction().execute(async (transaction) => {
        await usersRepo.updatePasswordHash(transaction, user.id, passwordHash);
        await repo.revokeSessionsOfUser(transaction, user.id, {
          reason: 'password changed',
          exceptSessionId: input.sessionId,
        });
        await deps.mail.enqueue(transaction, {
          to: user.email,
          template: 'password-changed',
          content: passwordChangedEmail({ supportEmail: deps.supportEmail }),
        });
      });
    },

    async requestEmailChange(input: {
      userId: string;
      newEmail: string;
      password: string;
    }): Promise<void> {
      const user = await usersRepo.findUserById(db, input.userId);
      if (!user) throw new AppError(401, messages.sessionEnded);
      if (!user.passwordHash) throw new AppError(400, messages.noPasswordYet);
      if (!(await hasher.verify(user.passwordHash, input.password))) {
        throw new AppError(400, messages.wrongCurrentPassword);
      }
      if (user.email.toLowerCase() === input.newEmail.toLowerCase()) {
        throw new AppError(400, messages.sameEmail);
      }
      const owner = await usersRepo.findUserByEmail(db, input.newEmail);
      if (owner) throw new AppError(409, messages.emailInUse);

      const code = randomSecret();
      await db.transaction().execute(async (transaction) => {
        await repo.consumeOpenCodes(transaction, user.id, 'email_change');
        await repo.insertCode(transaction, {
          userId: user.id,
          purpose: 'email_change',
          email: input.newEmail,
          codeHash: hashSecret(code),
          validSeconds: EMAIL_CHANGE_VALID_SECONDS,
        });
        await deps.mail.enqueue(transaction, {
          to: input.newEmail,
          template: 'email-change-confirmation',
          content: emailChangeConfirmationEmail({
            link: emailChangeLink(input.newEmail, code),
            newEmail: input.newEmail,
          }),
        });
        await deps.mail.enqueue(transaction, {
          to: user.email,
          template: 'email-change-notice',
          content: emailChangeNoticeEmail({
            newEmail: input.newEmail,
            supportEmail: deps.supportEmail,
          }),
        });
      });
    },

    async confirmEmailChange(input: { code: string; newEmail: string }): Promise<void> {
      try {
        await db.transaction().execute(async (transaction) => {
          const used = await repo.consumeCode(transaction, {
            purpose: 'email_change',
            codeHash: hashSecret(input.code),
            email: input.newEmail,
          });
          if (!used) throw new AppError(400, messages.emailLinkInvalid);
          await usersRepo.updateEmail(transaction, used.userId, used.email);
          await usersRepo.markEmailVerified(transaction, used.userId);
        });
      } catch (error) {
        // Taken by someone else since the request: nothing changed, the code stays usable.
        if (isUniqueViolation(error)) throw new AppError(409, messages.emailInUse);
        throw error;
      }
    },
  };
}

/** Whether a signed-in caller's session is still open: not signed out, revoked or expired. */
export async function isSessionLive(
  db: Kysely<Database>,
  caller: { userId: string; sessionId: string },
): Promise<boolean> {
  const session = await repo.findLiveSession(db, caller.sessionId);
  return session?.userId === caller.userId;
}
