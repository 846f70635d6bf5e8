// The rules of every account journey: registration, sign-in, token refresh, logout, password
// reset and change, email change. No HTTP and no SQL here: routes call these functions, repo.ts
// holds the queries, and each multi-step change is one transaction.
import type { Kysely, Transaction } from 'kysely';

import { deleteAccountMessages, type SessionItem, type TokenPair } from '@kegel/contract';

import type { Database, SignInMethod } from '../../db/schema';
import { isUuid } from '../../db/ids';
import { AppError, isUniqueViolation, SESSION_ENDED_MESSAGE } from '../../errors';
import type { Mailer } from '../../mail/outbox';
import {
  accountDeletedEmail,
  emailChangeConfirmationEmail,
  passwordChangedEmail,
  passwordResetEmail,
} from '../../mail/templates';
import type { Caller } from '../../security/client-address';
import { deviceLabel } from '../../security/device-label';
import { hashSecret, randomSecret } from '../../security/keys';
import {
  HashingBusyError,
  type PasswordCheck,
  type PasswordHasher,
} from '../../security/password-hasher';
import { createTurns } from '../../security/turns';
import type { PasswordScreen } from '../../security/password-screen';
import type {
  FailureGateRule,
  GateOutcome,
  RateLimiter,
  RateLimitRule,
} from '../../security/rate-limiter';
import type { SessionTokens } from '../../security/session-tokens';
import * as deletionRepo from '../users/deletion-repo';
import * as usersRepo from '../users/repo';
import { createEmailChangeUndo } from './email-change-undo';
import * as repo from './repo';

export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** Two tabs refreshing with the same token at once both get the same successor within this. */
export const REFRESH_GRACE_SECONDS = 10;
export const PASSWORD_RESET_VALID_SECONDS = 60 * 60;
export const EMAIL_CHANGE_VALID_SECONDS = 24 * 60 * 60;

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

/**
 * Wrong passwords for one account from addresses it never signed in from, all together: past 50
 * in an hour, a wrong password is answered 429 rather than 401 (guessing spread over many
 * addresses is slowed). It never refuses the right password: the owner on a network he has not
 * used lately still gets in, whatever strangers elsewhere try (docs/security.md).
 */
export const accountFailuresRule: RateLimitRule = {
  name: 'account-failures',
  limit: 50,
  windowSeconds: 60 * 60,
};

export const rateLimitRules = {
  /** Where an account signed in lately (password, Google or Apple): its owner's own networks. */
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
  /**
   * Renewals of one session: about 4 an hour in use (access tokens live 15 minutes), so this
   * stops only a client renewing in a loop. Per session, not per address: however many people
   * share a NAT address, their renewals never meet a common budget (docs/security.md).
   */
  refreshesPerSession: { name: 'refreshes-session', limit: 30, windowSeconds: 60 },
} satisfies Record<string, RateLimitRule>;

/** An account without a password is deleted only from a session begun this recently. */
export const RECENT_SIGN_IN_SECONDS = 10 * 60;

/** An account as the networks it signs in from are remembered for: its id and credentials. */
export interface KnownAccount {
  id: string;
  credentialVersion: number;
}

/** How long a password check waits for its turn while others for the same account run. */
const GATE_QUEUE_MS = 5_000;

type SignInCheck = 'valid' | 'invalid';

const messages = {
  sessionNotFound: 'Session not found',
  invalidCredentials: 'Invalid email or password',
  tooManyAttempts: 'Too many failed sign-in attempts. Please try again later.',
  tooManyWrongPasswords: 'Too many wrong passwords. Please try again later.',
  tooManyRegistrations: 'Too many new accounts from your network. Please try again later.',
  tooManyFromNetwork: 'Too many attempts from your network. Please try again later.',
  tooManyRequests: 'Too many requests. Please try again later.',
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
  busy: 'The server is busy. Please try again in a moment.',
} as const;

export interface AuthServiceDependencies {
  db: Kysely<Database>;
  hasher: PasswordHasher;
  /** Password sign-ins under way at once (the others wait their turn before any work). */
  passwordSignInsAtOnce: number;
  passwordScreen: PasswordScreen;
  tokens: SessionTokens;
  rateLimiter: RateLimiter;
  mail: Mailer;
  publicUrl: string;
  supportEmail: string;
  /** New accounts one client address may create per hour. */
  registrationsPerAddress: RateLimitRule;
  /**
   * What one client address may try across all accounts: registrations (an existing email
   * answers 409) and reset requests; and, counted apart with the same limit, wrong passwords for
   * accounts never signed in from there (credential stuffing), which it only slows.
   */
  attemptsPerAddress: RateLimitRule;
  /**
   * Told (after commit) when an account's email changed, so the payment provider's copy can
   * follow; it must not throw, nor hold the member's request up.
   */
  onEmailChanged?: (userId: string) => void;
  /**
   * Told (after commit) that an account was deleted, with its Stripe customer, so the payment
   * provider forgets the person too; it must not throw, nor hold the member's request up.
   */
  onAccountDeleted?: (account: { userId: string; stripeCustomerId: string | null }) => void;
}

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(deps: AuthServiceDependencies) {
  const { db, hasher, tokens, rateLimiter } = deps;
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
    const session = await repo.openSession(db, {
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

  function passwordResetLink(email: string, code: string): string {
    const query = new URLSearchParams({ email, code });
    return `${deps.publicUrl}/account/recover/new?${query.toString()}`;
  }

  function emailChangeLink(newEmail: string, code: string): string {
    const query = new URLSearchParams({ newEmail, code });
    return `${deps.publicUrl}/account/verify-email?${query.toString()}`;
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
    await repo.voidOpenCodes(transaction, userId, ['password_reset', 'email_change']);
    await repo.revokeSessionsOfUser(transaction, userId, options);
    return account;
  }

  const emailChangeUndo = createEmailChangeUndo({
    db,
    mail: deps.mail,
    publicUrl: deps.publicUrl,
    supportEmail: deps.supportEmail,
    secureAccount,
    onEmailChanged: deps.onEmailChanged,
  });

  /**
   * Wrong passwords per client address, for accounts that never signed in from there: as many
   * as the address's other attempts, but counted apart, so a stranger's guesses never use up the
   * registrations and reset requests of others behind his address.
   */
  const wrongPasswordsPerAddress: RateLimitRule = {
    ...deps.attemptsPerAddress,
    name: 'wrong-passwords-address',
  };

  const attemptKey = (accountKey: string, caller: Caller) =>
    `${accountKey}|${caller.clientAddress}`;

  /**
   * A network is the owner's for the account's current credentials: a reset, a password change or
   * the undo of an email change starts afresh, so the networks of whoever signed in before (an
   * attacker the owner just put out) stop counting as the owner's.
   */
  const knownAddressKey = (account: KnownAccount, caller: Caller) =>
    attemptKey(`${account.id}|v${account.credentialVersion}`, caller);

  /** Whether the account signed in from the caller's network lately, with its credentials now. */
  async function isKnownAddress(
    account: KnownAccount | undefined,
    caller: Caller,
  ): Promise<boolean> {
    if (!account) return false;
    const seen = await rateLimiter.peek(
      rateLimitRules.knownAddresses,
      knownAddressKey(account, caller),
    );
    return seen.count > 0;
  }

  /** Remembers the caller's network as one the account signs in from (for 30 days). */
  async function rememberSignInAddress(account: KnownAccount, caller: Caller): Promise<void> {
    // A window that starts now: an address stays known for 30 days after its latest sign-in.
    await rateLimiter.mark(rateLimitRules.knownAddresses, knownAddressKey(account, caller));
  }

  /** Counts one registration or reset request against the caller's address, or refuses. */
  async function spendAttempt(caller: Caller): Promise<void> {
    const spent = await rateLimiter.hit(deps.attemptsPerAddress, caller.clientAddress);
    if (!spent.isAllowed) {
      throw new AppError(429, messages.tooManyFromNetwork, spent.retryAfterSeconds);
    }
  }

  /** Waits its turn in a failure gate, or refuses: 429 while failures hold it shut. */
  async function enterGate(gate: FailureGateRule, key: string, tooMany: string): Promise<string> {
    const giveUpAt = Date.now() + GATE_QUEUE_MS;
    for (;;) {
      const answer = await rateLimiter.enterGate(gate, key);
      if (answer.kind === 'allowed') return answer.ticket;
      if (answer.kind === 'wait') throw new AppError(429, tooMany, answer.retryAfterSeconds);
      // Still busy after seconds: congestion, not guessing (the wait was for other checks).
      if (Date.now() >= giveUpAt) throw new AppError(503, messages.busy, 1);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
    }
  }

  /**
   * Every password check of the product goes through here: sign-in, change password, change
   * email. Only failures count. Per account and client address (passwordFailureGate), they hold
   * further checks from there back, whatever the password: that address is the one guessing.
   * Per account from addresses it never signed in from (accountFailuresRule) and per address
   * across such accounts (credential stuffing tries one leaked password on each of many
   * accounts), they only slow wrong guesses: the password is checked, a right one signs in, a
   * wrong one past the budget is answered 429. So a stranger's failures never keep out the
   * members who share his address (an office, a carrier's NAT), nor an owner on a new network
   * while others guess at his account elsewhere. A success marks the address as the owner's.
   * An unknown account is checked against a decoy hash, so it costs and counts like a real one.
   */
  async function checkPassword(
    account: {
      key: string;
      user: { id: string; passwordHash: string | null; credentialVersion: number } | undefined;
    },
    password: string,
    caller: Caller,
    tooMany: string,
  ): Promise<SignInCheck> {
    const { user } = account;
    const isKnown = await isKnownAddress(user, caller);
    const addressKey = attemptKey(account.key, caller);
    const addressTicket = await enterGate(passwordFailureGate, addressKey, tooMany);
    let outcome: GateOutcome = 'abandoned';
    let check: PasswordCheck = { isValid: false, needsRehash: false };
    try {
      check = user?.passwordHash
        ? await hasher.verify(user.passwordHash, password)
        : { isValid: await hasher.verifyAgainstNothing(password), needsRehash: false };
      outcome = check.isValid ? 'success' : 'failure';
    } finally {
      await rateLimiter.leaveGate(passwordFailureGate, addressKey, addressTicket, outcome);
    }
    if (!user || !check.isValid) {
      // The owner's typos on his own networks neither count nor are slowed.
      if (outcome === 'failure' && !isKnown) await slowWrongGuesses(account.key, caller, tooMany);
      return 'invalid';
    }
    await rememberSignInAddress(user, caller);
    if (check.needsRehash && user.passwordHash) {
      const oldHash = user.passwordHash;
      // Best effort, and only over the very hash checked: never over a password set meanwhile.
      // A busy hasher must not turn a right password into an error; the next sign-in retries.
      await hasher
        .hash(password)
        .then((newHash) =>
          usersRepo.updatePasswordHash(db, user.id, newHash, { replacing: oldHash }),
        )
        .catch(() => {});
    }
    return 'valid';
  }

  /**
   * Counts a wrong password from an address the account never signed in from, for the account
   * and for the address; past either budget the answer is 429 instead of 401. Counted atomically,
   * so guesses in parallel cannot pass a budget unslowed.
   */
  async function slowWrongGuesses(accountKey: string, caller: Caller, tooMany: string) {
    const [forAccount, fromAddress] = await Promise.all([
      rateLimiter.hit(accountFailuresRule, accountKey),
      rateLimiter.hit(wrongPasswordsPerAddress, caller.clientAddress),
    ]);
    if (!forAccount.isAllowed || !fromAddress.isAllowed) {
      const retryAfter = Math.max(
        forAccount.isAllowed ? 0 : forAccount.retryAfterSeconds,
        fromAddress.isAllowed ? 0 : fromAddress.retryAfterSeconds,
      );
      throw new AppError(429, tooMany, retryAfter);
    }
  }

  /** A signed-in member's own password, asked again before a change to his account. */
  async function confirmCurrentPassword(
    user: { id: string; email: string; passwordHash: string | null; credentialVersion: number },
    password: string,
    caller: Caller,
  ): Promise<void> {
    const account = { key: user.email.toLowerCase(), user };
    const check = await checkPassword(account, password, caller, messages.tooManyWrongPasswords);
    if (check !== 'valid') throw new AppError(400, messages.wrongCurrentPassword);
  }

  /** Whether one more reset mail for this account may go, asked for from this address. */
  async function mayMailReset(account: KnownAccount, caller: Caller): Promise<boolean> {
    const userId = account.id;
    const fromHere = await rateLimiter.hit(
      rateLimitRules.resetMailsPerAccountAndAddress,
      attemptKey(userId, caller),
    );
    if (!fromHere.isAllowed) return false;
    const fromAddress = await rateLimiter.hit(
      rateLimitRules.resetMailsPerAddress,
      caller.clientAddress,
    );
    if (!fromAddress.isAllowed) return false;
    // Strangers together cannot use up the mails the owner asks for from his own network.
    if (await isKnownAddress(account, caller)) return true;
    return (await rateLimiter.hit(rateLimitRules.resetMailsPerAccount, userId)).isAllowed;
  }

  /** An address nobody else may take: in use, or held for an account's undo of a change. */
  async function isAddressTaken(email: string): Promise<boolean> {
    return (
      (await usersRepo.findUserByEmail(db, email)) !== undefined ||
      (await repo.isAddressHeldForUndo(db, email))
    );
  }

  return {
    startSession,
    secureAccount,
    rememberSignInAddress,
    isKnownAddress,
    /**
     * Whether an address is held for the account that moved away from it (its "this wasn't me"
     * link is open): no account may be made with it meanwhile, by any path (ADR 016).
     */
    isAddressHeldForUndo: (executor: Kysely<Database> | Transaction<Database>, email: string) =>
      repo.isAddressHeldForUndo(executor, email),
    /** Password sign-ins under way and waiting their turn (the metrics). */
    signInLoad: () => signInTurns.load(),

    async register(
      input: { email: string; password: string },
      caller: Caller,
    ): Promise<{ id: string; email: string }> {
      await spendAttempt(caller);
      await deps.passwordScreen.assertAcceptable(input.password);
      const created = await rateLimiter.peek(deps.registrationsPerAddress, caller.clientAddress);
      if (created.count >= deps.registrationsPerAddress.limit) {
        throw new AppError(429, messages.tooManyRegistrations, created.retryAfterSeconds);
      }
      // Cheap checks before the costly hash.
      if (await isAddressTaken(input.email)) throw new AppError(409, messages.emailTaken);
      const passwordHash = await hasher.hash(input.password);
      try {
        const user = await usersRepo.insertUser(db, { email: input.email, passwordHash });
        // Accounts made are counted, not attempts.
        await rateLimiter.hit(deps.registrationsPerAddress, caller.clientAddress);
        return user;
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError(409, messages.emailTaken);
        throw error;
      }
    },

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
        const check = await checkPassword(
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
        const row = await repo.lockRefreshToken(transaction, hashSecret(claims.secret));
        if (!row || row.sessionId !== claims.sessionId) return { kind: 'unknown' as const };
        if (row.revokedAt || row.isExpired) return { kind: 'ended' as const };
        if (row.rotatedAt === null) {
          await repo.markRefreshTokenRotated(transaction, row.id);
          await repo.insertRefreshToken(transaction, {
            sessionId: row.sessionId,
            tokenHash: hashSecret(successorSecret),
          });
          await repo.markSessionUsed(transaction, row.sessionId);
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

    /**
     * Ends the session the refresh token belongs to; idempotent for a token of ours whose session
     * has ended already. What is not a live token of ours (malformed, forged, expired) is refused
     * with 401, as by every other call, rather than acknowledged as if a session had ended.
     */
    async logout(refreshToken: string): Promise<void> {
      const { secret } = await tokens.verifyRefreshToken(refreshToken).catch(() => {
        throw new AppError(401, messages.sessionEnded);
      });
      const token = await repo.findSessionIdByRefreshTokenHash(db, hashSecret(secret));
      if (token) await repo.revokeSession(db, token.sessionId, 'logout');
    },

    /** Answers the same whether or not the address has an account, and when a cap holds mail. */
    async requestPasswordReset(email: string, caller: Caller): Promise<string> {
      await spendAttempt(caller);
      const user = await usersRepo.findUserByEmail(db, email);
      if (!user) return messages.resetRequested;
      if (!(await mayMailReset(user, caller))) return messages.resetRequested;

      const code = randomSecret();
      await db.transaction().execute(async (transaction) => {
        await repo.voidOpenCodes(transaction, user.id, ['password_reset']);
        await repo.insertCode(transaction, {
          userId: user.id,
          purpose: 'password_reset',
          email: user.email,
          codeHash: hashSecret(code),
          validSeconds: PASSWORD_RESET_VALID_SECONDS,
          credentialVersion: user.credentialVersion,
        });
        await deps.mail.enqueue(transaction, {
          to: user.email,
          userId: user.id,
          template: 'password-reset',
          content: passwordResetEmail({
            link: passwordResetLink(user.email, code),
            validMinutes: PASSWORD_RESET_VALID_SECONDS / 60,
          }),
          uselessAfter: secondsFromNow(PASSWORD_RESET_VALID_SECONDS),
        });
      });
      return messages.resetRequested;
    },

    async confirmPasswordReset(
      input: { email: string; code: string; newPassword: string },
      caller: Caller,
    ): Promise<void> {
      await deps.passwordScreen.assertAcceptable(input.newPassword);
      const code = {
        purpose: 'password_reset',
        codeHash: hashSecret(input.code),
        email: input.email,
        requireCurrentCredentials: true,
      } as const;
      // A bogus code is refused before the costly hash; the code is used (atomically) below.
      const open = await repo.findOpenCode(db, code);
      if (!open) throw new AppError(400, messages.resetLinkInvalid);
      const passwordHash = await hasher.hash(input.newPassword);
      const account = await db.transaction().execute(async (transaction) => {
        await usersRepo.lockUser(transaction, open.userId);
        const used = await repo.consumeCode(transaction, code);
        if (used?.userId !== open.userId) return undefined;
        await usersRepo.updatePasswordHash(transaction, used.userId, passwordHash);
        // The link reached the owner's inbox: the address is proven.
        await usersRepo.markEmailVerified(transaction, used.userId);
        const { email, credentialVersion } = await secureAccount(transaction, used.userId, {
          reason: 'password reset',
        });
        await deps.mail.enqueue(transaction, {
          to: email,
          userId: used.userId,
          template: 'password-changed',
          content: passwordChangedEmail({ supportEmail: deps.supportEmail }),
        });
        return { userId: used.userId, email, credentialVersion };
      });
      if (!account) throw new AppError(400, messages.resetLinkInvalid);
      // The owner is back in from here: this address's failures are forgotten.
      await rateLimiter.reset(passwordFailureGate, attemptKey(account.email.toLowerCase(), caller));
      await rememberSignInAddress(
        { id: account.userId, credentialVersion: account.credentialVersion },
        caller,
      );
    },

    async changePassword(
      input: { userId: string; sessionId: string; oldPassword: string; newPassword: string },
      caller: Caller,
    ): Promise<void> {
      await deps.passwordScreen.assertAcceptable(input.newPassword);
      const user = await usersRepo.findUserById(db, input.userId);
      if (!user) throw new AppError(401, messages.sessionEnded);
      if (!user.passwordHash) throw new AppError(400, messages.noPasswordYet);
      await confirmCurrentPassword(user, input.oldPassword, caller);
      const passwordHash = await hasher.hash(input.newPassword);
      await db.transaction().execute(async (transaction) => {
        // Only over the credentials just checked: a reset that landed meanwhile wins.
        const isSet = await usersRepo.updatePasswordHash(transaction, user.id, passwordHash, {
          credentialVersion: user.credentialVersion,
        });
        if (!isSet) throw new AppError(401, messages.sessionEnded);
        const { email } = await secureAccount(transaction, user.id, {
          reason: 'password changed',
          exceptSessionId: input.sessionId,
        });
        await deps.mail.enqueue(transaction, {
          to: email,
          userId: user.id,
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
      await confirmCurrentPassword(user, input.password, caller);
      if (user.email.toLowerCase() === input.newEmail.toLowerCase()) {
        throw new AppError(400, messages.sameEmail);
      }
      if (await isAddressTaken(input.newEmail)) throw new AppError(409, messages.emailInUse);

      const code = randomSecret();
      await db.transaction().execute(async (transaction) => {
        // Only over the account as its password was checked: an undo, reset or confirmed change
        // that landed meanwhile (the owner taking it back) leaves this request nothing to mail,
        // above all no fresh "this wasn't me" link for the address just taken away (ADR 016).
        await usersRepo.lockUser(transaction, user.id);
        const current = await usersRepo.findUserById(transaction, user.id);
        if (current?.credentialVersion !== user.credentialVersion) {
          throw new AppError(401, messages.sessionEnded);
        }
        await repo.voidOpenCodes(transaction, user.id, ['email_change']);
        await repo.insertCode(transaction, {
          userId: user.id,
          purpose: 'email_change',
          email: input.newEmail,
          codeHash: hashSecret(code),
          validSeconds: EMAIL_CHANGE_VALID_SECONDS,
          // As read with the password just checked: a reset since then kills the code at birth.
          credentialVersion: user.credentialVersion,
        });
        await deps.mail.enqueue(transaction, {
          to: input.newEmail,
          userId: user.id,
          template: 'email-change-confirmation',
          content: emailChangeConfirmationEmail({
            link: emailChangeLink(input.newEmail, code),
            newEmail: input.newEmail,
          }),
          uselessAfter: secondsFromNow(EMAIL_CHANGE_VALID_SECONDS),
        });
        await emailChangeUndo.issueUndoLinks(transaction, { user, newEmail: input.newEmail });
      });
    },

    async confirmEmailChange(input: { code: string; newEmail: string }): Promise<void> {
      const code = {
        purpose: 'email_change',
        codeHash: hashSecret(input.code),
        email: input.newEmail,
        requireCurrentCredentials: true,
      } as const;
      const open = await repo.findOpenCode(db, code);
      if (!open) throw new AppError(400, messages.emailLinkInvalid);
      if (await repo.isAddressHeldForUndo(db, input.newEmail)) {
        throw new AppError(409, messages.emailInUse);
      }
      try {
        await db.transaction().execute(async (transaction) => {
          await usersRepo.lockUser(transaction, open.userId);
          const used = await repo.consumeCode(transaction, code);
          if (used?.userId !== open.userId) throw new AppError(400, messages.emailLinkInvalid);
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
      deps.onEmailChanged?.(open.userId);
    },

    /**
     * "Delete account": proven by the current password, or, for an account without one, by a
     * sign-in within RECENT_SIGN_IN_SECONDS. An active App Store subscription must be
     * acknowledged first, as deleting the account does not cancel it. The row goes with
     * everything that is the member's alone, his mail records too; purchases stay, tied to no one
     * (ADR 014). The confirmation goes to the address in the same transaction.
     */
    async deleteAccount(
      input: {
        userId: string;
        sessionId: string;
        password?: string;
        keepsAppStoreSubscription?: boolean;
      },
      caller: Caller,
    ): Promise<void> {
      const user = await usersRepo.findUserById(db, input.userId);
      if (!user) throw new AppError(401, messages.sessionEnded);
      if (user.passwordHash) {
        if (input.password === undefined) {
          throw new AppError(400, deleteAccountMessages.passwordNeeded);
        }
        await confirmCurrentPassword(user, input.password, caller);
      } else {
        const session = await repo.findLiveSession(db, input.sessionId);
        if (!session) throw new AppError(401, messages.sessionEnded);
        if (Date.now() - session.createdAt.getTime() > RECENT_SIGN_IN_SECONDS * 1000) {
          throw new AppError(403, deleteAccountMessages.signInAgain);
        }
      }
      // Deleting the account would void the link its previous address holds (ADR 016).
      if (await emailChangeUndo.hasOpenWindow(db, user.id)) {
        throw new AppError(409, deleteAccountMessages.undoWindowOpen);
      }
      const hasAppStoreSubscription = await deletionRepo.hasActiveAppStoreSubscription(db, user.id);
      if (hasAppStoreSubscription && input.keepsAppStoreSubscription !== true) {
        throw new AppError(409, deleteAccountMessages.appStoreSubscriptionActive);
      }
      const deleted = await db.transaction().execute(async (transaction) => {
        await usersRepo.lockUser(transaction, user.id);
        const current = await usersRepo.findUserById(transaction, user.id);
        const customer = await usersRepo.findStripeCustomer(transaction, user.id);
        // Deleted meanwhile (a second tab), or its credentials changed since they were checked.
        if (!current || !customer || current.credentialVersion !== user.credentialVersion) {
          return undefined;
        }
        const requested = await deletionRepo.listRequestedEmails(transaction, user.id);
        await deletionRepo.deleteUnownedMailTo(transaction, [current.email, ...requested]);
        await deletionRepo.deleteUser(transaction, user.id);
        // Stripe forgets the customer after the commit; the row makes sure it happens.
        if (customer.stripeCustomerId) {
          await deletionRepo.recordStripeCustomerDeletion(transaction, customer.stripeCustomerId);
        }
        await deps.mail.enqueue(transaction, {
          to: current.email,
          // About an account that is gone: nothing to delete it with.
          userId: null,
          template: 'account-deleted',
          content: accountDeletedEmail({
            hadAppStoreSubscription: hasAppStoreSubscription,
            supportEmail: deps.supportEmail,
          }),
        });
        return { stripeCustomerId: customer.stripeCustomerId };
      });
      if (!deleted) throw new AppError(401, messages.sessionEnded);
      deps.onAccountDeleted?.({ userId: user.id, stripeCustomerId: deleted.stripeCustomerId });
    },

    /** Where the member is signed in: his open sessions, last used first, his own marked. */
    async listSessions(caller: { userId: string; sessionId: string }): Promise<SessionItem[]> {
      const sessions = await repo.listLiveSessions(db, caller.userId);
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
        ? await repo.revokeSessionOfUser(db, caller.userId, sessionId, 'signed out by the member')
        : false;
      if (!isEnded) throw new AppError(404, messages.sessionNotFound);
    },

    /** Signs every session of the member out but the one asking. */
    async endOtherSessions(caller: { userId: string; sessionId: string }): Promise<void> {
      await repo.revokeSessionsOfUser(db, caller.userId, {
        reason: 'signed out of other devices',
        exceptSessionId: caller.sessionId,
      });
    },

    /** "This wasn't me", from the notice mailed to the old address (email-change-undo.ts). */
    cancelEmailChange: (input: { code: string }) => emailChangeUndo.undo(input),
    listEmailChangeUndoWindows: (caller: { userId: string; sessionId: string }) =>
      emailChangeUndo.listWindows(caller),
    closeEmailChangeUndoWindows: (caller: { userId: string; sessionId: string }) =>
      emailChangeUndo.closeWindows(caller),
  };
}

/** When a link made now expires: its mail is not worth sending after then. */
function secondsFromNow(seconds: number): Date {
  return new Date(Date.now() + seconds * 1000);
}

/**
 * The account of a signed-in caller whose session is still open (not signed out, revoked or
 * expired); undefined otherwise. Runs on every signed-in call: one statement, compiled once.
 */
export function findSignedInAccount(
  db: Kysely<Database>,
  claims: { userId: string; sessionId: string },
) {
  return repo.findSignedInAccount(db, claims);
}
