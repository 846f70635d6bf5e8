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
import type { PasswordCheck, PasswordHasher } from '../../security/password-hasher';
import type {
  FailureGateRule,
  GateOutcome,
  RateLimiter,
  RateLimitRule,
} from '../../security/rate-limiter';
import { InvalidTokenError, type SessionTokens } from '../../security/session-tokens';
import * as usersRepo from '../users/repo';
import * as repo from './repo';

export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** Two tabs refreshing with the same token at once both get the same successor within this. */
export const REFRESH_GRACE_SECONDS = 10;
export const PASSWORD_RESET_VALID_SECONDS = 60 * 60;
export const EMAIL_CHANGE_VALID_SECONDS = 24 * 60 * 60;
/** The "this wasn't me" link outlives the change it is about, so a quick attacker can be undone. */
export const EMAIL_CHANGE_CANCEL_VALID_SECONDS = 7 * 24 * 60 * 60;

/**
 * Wrong passwords (sign-in, change password, change email) for one account from one client
 * address: five free, then a wait that doubles after each further failure. Keyed by account and
 * address, so a stranger who knows the email locks out only himself, not the owner.
 */
export const passwordFailureGate: FailureGateRule = {
  name: 'password-failures',
  freeFailures: 5,
  firstDelaySeconds: 30,
  maxDelaySeconds: 15 * 60,
  forgetAfterSeconds: 24 * 60 * 60,
};

export const rateLimitRules = {
  /**
   * Wrong passwords for one account from every address together: against guessing spread over
   * many addresses. Once reached, only addresses the account signed in from before get in.
   */
  accountFailures: { name: 'account-failures', limit: 50, windowSeconds: 60 * 60 },
  /** Where an account signed in with its password lately: its owner's own networks. */
  knownAddresses: {
    name: 'known-address',
    limit: Number.MAX_SAFE_INTEGER,
    windowSeconds: 30 * 24 * 60 * 60,
  },
  /** Reset mails for one account asked for from one address. */
  resetMailsPerAccountAndAddress: {
    name: 'reset-mails-account-address',
    limit: 3,
    windowSeconds: 60 * 60,
  },
  /** Reset mails for one account from addresses it never signed in from. */
  resetMailsPerAccount: { name: 'reset-mails-account', limit: 10, windowSeconds: 60 * 60 },
  /** Reset mails (to any accounts) asked for from one address. */
  resetMailsPerAddress: { name: 'reset-mails-address', limit: 30, windowSeconds: 60 * 60 },
} satisfies Record<string, RateLimitRule>;

/** How long a password check waits for its turn while others for the same account run. */
const GATE_QUEUE_MS = 5_000;

const messages = {
  invalidCredentials: 'Invalid email or password',
  tooManyAttempts: 'Too many failed sign-in attempts. Please try again later.',
  tooManyWrongPasswords: 'Too many wrong passwords. Please try again later.',
  tooManyRegistrations: 'Too many new accounts from your network. Please try again later.',
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
  emailChangeCancelled:
    'The email change was cancelled and every device was signed out. Choose a new password to sign in again.',
  cancelLinkInvalid: 'This link is invalid, was used already or has expired.',
} as const;

/** Where a request comes from: the limits count per client address. */
export interface Caller {
  clientAddress: string;
}

export interface AuthServiceDependencies {
  db: Kysely<Database>;
  hasher: PasswordHasher;
  tokens: SessionTokens;
  rateLimiter: RateLimiter;
  mail: Mailer;
  publicUrl: string;
  supportEmail: string;
  /** New accounts one client address may create per hour. */
  registrationsPerAddress: RateLimitRule;
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

  function emailChangeCancelLink(code: string): string {
    return `${deps.publicUrl}/account/cancel-email-change?${new URLSearchParams({ code }).toString()}`;
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
  ): Promise<{ email: string }> {
    const account = await usersRepo.raiseCredentialVersion(transaction, userId);
    await repo.voidOpenCodes(transaction, userId, ['password_reset', 'email_change']);
    await repo.revokeSessionsOfUser(transaction, userId, options);
    return account;
  }

  const attemptKey = (accountKey: string, caller: Caller) =>
    `${accountKey}|${caller.clientAddress}`;

  async function isKnownAddress(accountKey: string, caller: Caller): Promise<boolean> {
    const seen = await rateLimiter.peek(
      rateLimitRules.knownAddresses,
      attemptKey(accountKey, caller),
    );
    return seen.count > 0;
  }

  /** Waits its turn in the account's failure gate for this address, or refuses with 429. */
  async function enterPasswordGate(key: string, tooMany: string): Promise<string> {
    const giveUpAt = Date.now() + GATE_QUEUE_MS;
    for (;;) {
      const answer = await rateLimiter.enterGate(passwordFailureGate, key);
      if (answer.kind === 'allowed') return answer.ticket;
      if (answer.kind === 'wait') throw new AppError(429, tooMany, answer.retryAfterSeconds);
      if (Date.now() >= giveUpAt) throw new AppError(429, tooMany, 1);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
    }
  }

  /**
   * Every password check of the product goes through here: sign-in, change password, change
   * email. Only failures count, per account and client address (see passwordFailureGate), and
   * against the account's ceiling; a success marks the address as the owner's. An unknown
   * account is checked against a decoy hash, so it costs and counts like a real one.
   */
  async function checkPassword(
    account: { key: string; user: { id: string; passwordHash: string | null } | undefined },
    password: string,
    caller: Caller,
    tooMany: string,
  ): Promise<boolean> {
    if (!(await isKnownAddress(account.key, caller))) {
      const failures = await rateLimiter.peek(rateLimitRules.accountFailures, account.key);
      if (failures.count >= rateLimitRules.accountFailures.limit) {
        throw new AppError(429, tooMany, failures.retryAfterSeconds);
      }
    }
    const key = attemptKey(account.key, caller);
    const ticket = await enterPasswordGate(key, tooMany);
    const { user } = account;
    let outcome: GateOutcome = 'abandoned';
    let check: PasswordCheck;
    try {
      check = user?.passwordHash
        ? await hasher.verify(user.passwordHash, password)
        : { isValid: await hasher.verifyAgainstNothing(password), needsRehash: false };
      outcome = check.isValid ? 'success' : 'failure';
    } finally {
      await rateLimiter.leaveGate(passwordFailureGate, key, ticket, outcome);
    }
    if (outcome === 'failure') await rateLimiter.hit(rateLimitRules.accountFailures, account.key);
    if (outcome === 'success') await rememberAddress(account.key, caller);
    if (user && check.needsRehash) {
      // Best effort: a busy hasher must not turn a right password into an error; the next
      // sign-in tries again.
      await hasher
        .hash(password)
        .then((passwordHash) => usersRepo.updatePasswordHash(db, user.id, passwordHash))
        .catch(() => {});
    }
    return check.isValid;
  }

  async function rememberAddress(accountKey: string, caller: Caller): Promise<void> {
    const key = attemptKey(accountKey, caller);
    // Restarts the window: an address stays known for 30 days after its latest success.
    await rateLimiter.reset(rateLimitRules.knownAddresses, key);
    await rateLimiter.hit(rateLimitRules.knownAddresses, key);
  }

  /** Whether one more reset mail for this account may go, asked for from this address. */
  async function mayMailReset(accountKey: string, caller: Caller): Promise<boolean> {
    const fromHere = await rateLimiter.hit(
      rateLimitRules.resetMailsPerAccountAndAddress,
      attemptKey(accountKey, caller),
    );
    if (!fromHere.isAllowed) return false;
    const fromAddress = await rateLimiter.hit(
      rateLimitRules.resetMailsPerAddress,
      caller.clientAddress,
    );
    if (!fromAddress.isAllowed) return false;
    // Strangers together cannot use up the mails the owner asks for from his own network.
    if (await isKnownAddress(accountKey, caller)) return true;
    return (await rateLimiter.hit(rateLimitRules.resetMailsPerAccount, accountKey)).isAllowed;
  }

  return {
    startSession,
    secureAccount,

    async register(
      input: { email: string; password: string },
      caller: Caller,
    ): Promise<{ id: string; email: string }> {
      const created = await rateLimiter.hit(deps.registrationsPerAddress, caller.clientAddress);
      if (!created.isAllowed) {
        throw new AppError(429, messages.tooManyRegistrations, created.retryAfterSeconds);
      }
      // Cheap checks before the costly hash.
      if (await usersRepo.findUserByEmail(db, input.email)) {
        throw new AppError(409, messages.emailTaken);
      }
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
    async login(input: { email: string; password: string }, caller: Caller): Promise<TokenPair> {
      const user = await usersRepo.findUserByEmail(db, input.email);
      const account = { key: input.email.toLowerCase(), user };
      const isValid = await checkPassword(
        account,
        input.password,
        caller,
        messages.tooManyAttempts,
      );
      if (!user || !isValid) throw new AppError(401, messages.invalidCredentials);
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
        // Only the direct predecessor of the current token gets the grace: a token two or more
        // rotations old is a copy, whoever shows it.
        const isPredecessor = !(await repo.isRefreshTokenRotated(
          transaction,
          hashSecret(successorSecret),
        ));
        if (isPredecessor && row.secondsSinceRotation <= REFRESH_GRACE_SECONDS) {
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

    /** Answers the same whether or not the address has an account, and when a cap holds mail. */
    async requestPasswordReset(email: string, caller: Caller): Promise<string> {
      const user = await usersRepo.findUserByEmail(db, email);
      if (!user) return messages.resetRequested;
      if (!(await mayMailReset(user.email.toLowerCase(), caller))) return messages.resetRequested;

      const code = randomSecret();
      await db.transaction().execute(async (transaction) => {
        await repo.voidOpenCodes(transaction, user.id, ['password_reset']);
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

    async confirmPasswordReset(
      input: { email: string; code: string; newPassword: string },
      caller: Caller,
    ): Promise<void> {
      const code = {
        purpose: 'password_reset',
        codeHash: hashSecret(input.code),
        email: input.email,
        requireCurrentCredentials: true,
      } as const;
      // A bogus code is refused before the costly hash; the code is used (atomically) below.
      if (!(await repo.isCodeOpen(db, code))) throw new AppError(400, messages.resetLinkInvalid);
      const passwordHash = await hasher.hash(input.newPassword);
      const account = await db.transaction().execute(async (transaction) => {
        const used = await repo.consumeCode(transaction, code);
        if (!used) return undefined;
        await usersRepo.updatePasswordHash(transaction, used.userId, passwordHash);
        // The link reached the owner's inbox: the address is proven.
        await usersRepo.markEmailVerified(transaction, used.userId);
        const { email } = await secureAccount(transaction, used.userId, {
          reason: 'password reset',
        });
        await deps.mail.enqueue(transaction, {
          to: email,
          template: 'password-changed',
          content: passwordChangedEmail({ supportEmail: deps.supportEmail }),
        });
        return { email };
      });
      if (!account) throw new AppError(400, messages.resetLinkInvalid);
      // The owner is back in from here: this address's failures are forgotten.
      const accountKey = account.email.toLowerCase();
      await rateLimiter.reset(passwordFailureGate, attemptKey(accountKey, caller));
      await rememberAddress(accountKey, caller);
    },

    async changePassword(
      input: { userId: string; sessionId: string; oldPassword: string; newPassword: string },
      caller: Caller,
    ): Promise<void> {
      const user = await usersRepo.findUserById(db, input.userId);
      if (!user) throw new AppError(401, messages.sessionEnded);
      if (!user.passwordHash) throw new AppError(400, messages.noPasswordYet);
      const account = { key: user.email.toLowerCase(), user };
      if (
        !(await checkPassword(account, input.oldPassword, caller, messages.tooManyWrongPasswords))
      ) {
        throw new AppError(400, messages.wrongCurrentPassword);
      }
      const passwordHash = await hasher.hash(input.newPassword);
      await db.transaction().execute(async (transaction) => {
        await usersRepo.updatePasswordHash(transaction, user.id, passwordHash);
        const { email } = await secureAccount(transaction, user.id, {
          reason: 'password changed',
          exceptSessionId: input.sessionId,
        });
        await deps.mail.enqueue(transaction, {
          to: email,
          template: 'password-changed',
          content: passwordChangedEmail({ supportEmail: deps.supportEmail }),
        });
      });
    },

    async requestEmailChange(
      input: { userId: string; newEmail: string; password: string },
      caller: Caller,
    ): Promise<void> {
      const user = await usersRepo.findUserById(db, input.userId);
      if (!user) throw new AppError(401, messages.sessionEnded);
      if (!user.passwordHash) throw new AppError(400, messages.noPasswordYet);
      const account = { key: user.email.toLowerCase(), user };
      if (!(await checkPassword(account, input.password, caller, messages.tooManyWrongPasswords))) {
        throw new AppError(400, messages.wrongCurrentPassword);
      }
      if (user.email.toLowerCase() === input.newEmail.toLowerCase()) {
        throw new AppError(400, messages.sameEmail);
      }
      const owner = await usersRepo.findUserByEmail(db, input.newEmail);
      if (owner) throw new AppError(409, messages.emailInUse);

      const code = randomSecret();
      const cancelCode = randomSecret();
      await db.transaction().execute(async (transaction) => {
        await repo.voidOpenCodes(transaction, user.id, ['email_change']);
        await repo.insertCode(transaction, {
          userId: user.id,
          purpose: 'email_change',
          email: input.newEmail,
          codeHash: hashSecret(code),
          validSeconds: EMAIL_CHANGE_VALID_SECONDS,
        });
        await repo.insertCode(transaction, {
          userId: user.id,
          purpose: 'email_change_cancel',
          email: user.email,
          requestedEmail: input.newEmail,
          codeHash: hashSecret(cancelCode),
          validSeconds: EMAIL_CHANGE_CANCEL_VALID_SECONDS,
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
            cancelLink: emailChangeCancelLink(cancelCode),
            validDays: EMAIL_CHANGE_CANCEL_VALID_SECONDS / (24 * 60 * 60),
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
            requireCurrentCredentials: true,
          });
          if (!used) throw new AppError(400, messages.emailLinkInvalid);
          await usersRepo.updateEmail(transaction, used.userId, used.email);
          await usersRepo.markEmailVerified(transaction, used.userId);
          // Links mailed to the old address (a reset) must not work on the account any more.
          await usersRepo.raiseCredentialVersion(transaction, used.userId);
          await repo.voidOpenCodes(transaction, used.userId, ['password_reset', 'email_change']);
        });
      } catch (error) {
        // Taken by someone else since the request: nothing changed, the code stays usable.
        if (isUniqueViolation(error)) throw new AppError(409, messages.emailInUse);
        throw error;
      }
    },

    /**
     * "This wasn't me", from the notice mailed to the old address: cancels the change, or undoes
     * it if it was confirmed already (unless the old address has been taken since), and ends
     * every session of the account. Whoever asked for the change knew the password (or has set
     * one since through the new address), so the password is cleared too: the owner chooses a
     * new one through a reset link, which now goes to his own address.
     */
    async cancelEmailChange(input: { code: string }): Promise<string> {
      await db.transaction().execute(async (transaction) => {
        const used = await repo.consumeCode(transaction, {
          purpose: 'email_change_cancel',
          codeHash: hashSecret(input.code),
          requireCurrentCredentials: false,
        });
        if (!used) throw new AppError(400, messages.cancelLinkInvalid);
        const user = await usersRepo.findUserById(transaction, used.userId);
        const wasConfirmed = user?.email.toLowerCase() === used.requestedEmail?.toLowerCase();
        if (wasConfirmed && !(await usersRepo.findUserByEmail(transaction, used.email))) {
          await usersRepo.updateEmail(transaction, used.userId, used.email);
        }
        await usersRepo.removePassword(transaction, used.userId);
        await secureAccount(transaction, used.userId, { reason: 'email change cancelled' });
      });
      return messages.emailChangeCancelled;
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
