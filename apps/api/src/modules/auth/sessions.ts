// Sign-in sessions: opening one (password, Google, Apple), renewing and ending it
// (session-renewal.ts), the list of where a member is signed in (session-list.ts), and securing
// an account when its credentials change.
import type { Transaction } from 'kysely';

import { type SignInResponse, type TokenPair } from '@kegel/contract';
import type { PageLocale } from '@kegel/contract/i18n';

import { isDatabaseUnreachable } from '../../db/database';
import type { Database, SignInMethod } from '../../db/schema';
import { AppError } from '../../errors';
import type { Caller } from '../../security/client-address';
import { deviceLabel } from '../../security/device-label';
import { hashSecret, randomSecret } from '../../security/keys';
import { HashingBusyError } from '../../security/password-hasher';
import { createTurns } from '../../security/turns';
import { usersRepo } from '../users';
import * as codeRepo from './code-repo';
import type { CredentialChecks } from './credential-checks';
import { endOtherSessions, endSession, listSessions } from './session-list';
import { issueTokenPair, logout, refresh } from './session-renewal';
import * as sessionRepo from './session-repo';
import {
  FAMILIAR_WITHIN_DAYS,
  recordSignInSuccess,
  type SignInAttempt,
  whereFrom,
} from './sign-in-history';
import { type AuthServiceDependencies, messages, SESSION_LIFETIME_SECONDS } from './rules';

export type Sessions = ReturnType<typeof createSessions>;

export function createSessions(deps: AuthServiceDependencies, checks: CredentialChecks) {
  const { db } = deps;
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

  return {
    startSession: (userId: string, how: SessionOpening) => startSession(deps, userId, how),
    secureAccount,
    /** Password sign-ins under way and waiting their turn (the metrics). */
    signInLoad: () => signInTurns.load(),
    login: (
      input: { email: string; password: string },
      caller: Caller,
      /** Aborts when the caller has gone: a sign-in still waiting for its turn is then dropped. */
      callerLeft?: AbortSignal,
    ): Promise<SignInResponse> =>
      signInTurns.take(() => login(deps, checks, input, caller), callerLeft),
    markSecondFactorProved: (sessionId: string) =>
      sessionRepo.markSecondFactorProved(deps.db, sessionId),
    refresh: (refreshToken: string) => refresh(deps, refreshToken),
    logout: (refreshToken: string) => logout(deps, refreshToken),
    listSessions: (caller: { userId: string; sessionId: string }, locale: PageLocale) =>
      listSessions(db, caller, locale),
    endSession: (caller: { userId: string }, sessionId: string) =>
      endSession(db, caller, sessionId),
    endOtherSessions: (caller: { userId: string; sessionId: string }) =>
      endOtherSessions(db, caller),
  };
}

export interface SessionOpening {
  method: SignInMethod;
  caller: Caller;
  credentialVersion?: number;
  /** The sign-in proved a second factor (a two-step code, a passkey): the support desk asks. */
  provedSecondFactor?: boolean;
}

/**
 * Opens a sign-in session for a user: password, Google and Apple sign-ins all end here. A
 * password sign-in passes the credential version it checked the password at: if a reset or
 * change landed meanwhile, no session opens and the answer is the wrong-password one.
 */
async function startSession(
  deps: AuthServiceDependencies,
  userId: string,
  how: SessionOpening,
): Promise<TokenPair> {
  const secret = randomSecret();
  const session = await openRecordedSession(
    deps,
    {
      userId,
      expiresAt: new Date(Date.now() + SESSION_LIFETIME_SECONDS * 1000),
      credentialVersion: how.credentialVersion,
      signInMethod: how.method,
      provedSecondFactor: how.provedSecondFactor ?? false,
      deviceLabel: deviceLabel(how.caller.userAgent),
      refreshTokenHash: hashSecret(secret),
    },
    { userId, method: how.method, caller: how.caller },
  );
  if (!session) throw new AppError(401, messages.invalidCredentials);
  return issueTokenPair(deps.tokens, {
    userId,
    sessionId: session.id,
    refreshSecret: secret,
    expiresAt: session.expiresAt,
  });
}

/**
 * Opens the session and records its sign-in (ADR 019): a familiar one in the same statement, one
 * from somewhere new with its notice right after. Recording never fails a sign-in: should
 * PostgreSQL refuse that statement (it then did nothing), the session opens alone and the
 * sign-in is recorded apart, its errors logged and swallowed. A database out of reach, or a
 * statement cancelled, is no reason to try again: that error is the sign-in's.
 */
async function openRecordedSession(
  deps: AuthServiceDependencies,
  session: Parameters<typeof sessionRepo.openSession>[1],
  attempt: SignInAttempt,
) {
  const { clientAddress, network } = whereFrom(attempt.caller);
  let opened;
  try {
    opened = await sessionRepo.openSession(deps.db, session, {
      clientAddress,
      network,
      familiarWithinDays: FAMILIAR_WITHIN_DAYS,
    });
  } catch (error) {
    if (!isRefusedStatement(error)) throw error;
    deps.log?.warn({ err: error }, 'sign-ins: opening a session with its record failed; alone now');
    opened = await sessionRepo.openSession(deps.db, session);
    if (opened) await recordSignInSuccess(deps, attempt);
    return opened;
  }
  if (opened && !opened.isSignInRecorded) {
    await recordSignInSuccess(deps, attempt, { isNewHere: true });
  }
  return opened;
}

/**
 * Whether PostgreSQL itself refused a statement (an SQLSTATE of its own), which then changed
 * nothing: not a lost connection, after which it may have committed, nor a cancelled one
 * (class 57: a timeout, a shutdown), which would only wait as long again.
 */
function isRefusedStatement(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return (
    typeof code === 'string' &&
    /^[0-9A-Z]{5}$/.test(code) &&
    !code.startsWith('57') &&
    !isDatabaseUnreachable(error)
  );
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
): Promise<{ email: string; credentialVersion: number; locale: string | null }> {
  const account = await usersRepo.raiseCredentialVersion(transaction, userId);
  await codeRepo.voidOpenCodes(transaction, userId, ['password_reset', 'email_change']);
  await sessionRepo.revokeSessionsOfUser(transaction, userId, options);
  return account;
}

/**
 * Same status, body and work for a wrong password and an unknown email: an unknown email is
 * verified against a decoy hash and counts as a failure like any other. Runs in its turn
 * (createSessions' `signInTurns`). With two-step sign-in on, a right password opens no session:
 * the answer is the code step's token (ADR 018).
 */
async function login(
  deps: AuthServiceDependencies,
  checks: CredentialChecks,
  input: { email: string; password: string },
  caller: Caller,
): Promise<SignInResponse> {
  const user = await sessionRepo.findSignInAccount(deps.db, input.email);
  const account = { key: input.email.toLowerCase(), user };
  const secondStepFollows = user?.twoStepOn ?? false;
  const check = await checks.checkPassword(
    account,
    input.password,
    caller,
    messages.tooManyAttempts,
    { secondStepFollows },
  );
  if (!user || check !== 'valid') throw new AppError(401, messages.invalidCredentials);
  const challenge = secondStepFollows
    ? await deps.secondStep.challengeIfOn({
        userId: user.id,
        method: 'password',
        credentialVersion: user.credentialVersion,
      })
    : undefined;
  if (challenge) return challenge;
  return startSession(deps, user.id, {
    method: 'password',
    caller,
    credentialVersion: user.credentialVersion,
  });
}

/**
 * Ends every session of the member (the support desk signing him out everywhere), inside the
 * caller's transaction; answers how many were open. Their access tokens stop working at once:
 * every signed-in call checks its session (findSignedInAccount).
 */
export function endEverySession(
  transaction: Transaction<Database>,
  userId: string,
  reason: string,
): Promise<number> {
  return sessionRepo.revokeSessionsOfUser(transaction, userId, { reason });
}
