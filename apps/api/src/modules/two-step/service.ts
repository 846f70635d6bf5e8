// Two-step sign-in (ADR 018): turning it on with an authenticator app, its recovery codes,
// turning it off, the check a change of credentials makes, and the second step of every sign-in
// (sign-in-step.ts). No HTTP and no SQL here: routes.ts calls these, repo.ts holds the queries.
// Every code is checked under the failure gates of a password (code-checks.ts), and each is taken
// once. Turning it on or off and renewing the recovery codes are mailed to the owner.
import {
  isAuthenticatorCode,
  type MfaRequired,
  RECOVERY_CODE_COUNT,
  type TokenPair,
  type TwoStepSetupResponse,
  twoStepMessages,
} from '@kegel/contract';
import type { Kysely, Transaction } from 'kysely';

import type { Database, SignInMethod } from '../../db/schema';
import { AppError, SESSION_ENDED_MESSAGE } from '../../errors';
import type { Caller } from '../../security/client-address';
import { hashSecret, seal } from '../../security/keys';
import { checkAppCode, checkSecondFactor, ownerOf, type SecondFactor } from './code-checks';
import { tellOwnerOfChange } from './owner-notices';
import * as repo from './repo';
import {
  authenticatorUrl,
  newAuthenticatorSecret,
  newRecoveryCodes,
  normalizedRecoveryCode,
  type TwoStepDependencies,
} from './rules';
import { challengeIfOn, verifySignIn } from './sign-in-step';

export type { SecondFactor } from './code-checks';

export type TwoStepService = ReturnType<typeof createTwoStepService>;

export function createTwoStepService(deps: TwoStepDependencies) {
  return {
    isOn: (userId: string) => repo.isTwoStepOn(deps.db, userId),
    setUp: (account: { id: string; email: string }) => setUp(deps, account),
    confirm: (userId: string, code: string, caller: Caller) => confirm(deps, userId, code, caller),
    turnOff: (userId: string, factor: SecondFactor, caller: Caller) =>
      turnOff(deps, userId, factor, caller),
    renewRecoveryCodes: (userId: string, code: string, caller: Caller) =>
      renewRecoveryCodes(deps, userId, code, caller),
    requireSecondFactorIfOn: (userId: string, code: string | undefined, caller: Caller) =>
      requireSecondFactorIfOn(deps, userId, code, caller),
    stepUp: (session: { userId: string; sessionId: string }, code: string, caller: Caller) =>
      stepUp(deps, session, code, caller),
    challengeIfOn: (account: {
      userId: string;
      method: SignInMethod;
      credentialVersion: number;
    }): Promise<MfaRequired | undefined> => challengeIfOn(deps, account),
    verifySignIn: (
      input: { mfaToken: string } & SecondFactor,
      caller: Caller,
    ): Promise<TokenPair> => verifySignIn(deps, input, caller),
  };
}

/** Ten new recovery codes for the account: their hashes are kept, the codes shown once. */
async function issueRecoveryCodes(
  executor: Kysely<Database> | Transaction<Database>,
  userId: string,
): Promise<string[]> {
  const codes = newRecoveryCodes(RECOVERY_CODE_COUNT);
  const hashes = codes.map((code) => hashSecret(normalizedRecoveryCode(code)));
  await repo.replaceRecoveryCodes(executor, userId, hashes);
  return codes;
}

async function assertOn(deps: TwoStepDependencies, userId: string): Promise<void> {
  if (!(await repo.isTwoStepOn(deps.db, userId))) throw new AppError(409, twoStepMessages.notOn);
}

/** A new secret for the app, off until confirmed; it replaces one not yet confirmed. */
async function setUp(
  deps: TwoStepDependencies,
  account: { id: string; email: string },
): Promise<TwoStepSetupResponse> {
  const secret = newAuthenticatorSecret();
  const isSaved = await repo.saveUnconfirmedAuthenticator(
    deps.db,
    account.id,
    seal(deps.secretKey, secret),
  );
  if (!isSaved) throw new AppError(409, twoStepMessages.alreadyOn);
  return { secret, otpauthUrl: authenticatorUrl(secret, account.email) };
}

/**
 * Turns two-step sign-in on with a first code from the app, proving it was set up, and answers
 * the recovery codes. Sessions already open stay open: they were begun by the owner.
 */
async function confirm(
  deps: TwoStepDependencies,
  userId: string,
  code: string,
  caller: Caller,
): Promise<string[]> {
  const owner = await ownerOf(deps, userId);
  const authenticator = await repo.findAuthenticator(deps.db, userId);
  if (authenticator?.confirmedAt) throw new AppError(409, twoStepMessages.alreadyOn);
  if (!authenticator) throw new AppError(409, twoStepMessages.noSetupWaiting);
  if (!(await checkAppCode(deps, owner, code, caller, { confirmed: false }))) {
    throw new AppError(400, twoStepMessages.wrongCode);
  }
  return deps.db.transaction().execute(async (transaction) => {
    if (!(await repo.markConfirmed(transaction, userId))) {
      throw new AppError(409, twoStepMessages.alreadyOn);
    }
    const codes = await issueRecoveryCodes(transaction, userId);
    await tellOwnerOfChange(deps, transaction, owner, 'turned-on');
    return codes;
  });
}

/** Turns two-step sign-in off, proven by a current code or a recovery code. */
async function turnOff(
  deps: TwoStepDependencies,
  userId: string,
  factor: SecondFactor,
  caller: Caller,
): Promise<void> {
  const owner = await ownerOf(deps, userId);
  await assertOn(deps, userId);
  if (!(await checkSecondFactor(deps, owner, factor, caller))) {
    throw new AppError(
      400,
      'code' in factor ? twoStepMessages.wrongCode : twoStepMessages.wrongRecoveryCode,
    );
  }
  await deps.db.transaction().execute(async (transaction) => {
    await repo.deleteTwoStep(transaction, userId);
    await tellOwnerOfChange(deps, transaction, owner, 'turned-off');
  });
}

/** Ten new recovery codes for a current code from the app; the old ones stop working. */
async function renewRecoveryCodes(
  deps: TwoStepDependencies,
  userId: string,
  code: string,
  caller: Caller,
): Promise<string[]> {
  const owner = await ownerOf(deps, userId);
  await assertOn(deps, userId);
  if (!(await checkAppCode(deps, owner, code, caller, { confirmed: true }))) {
    throw new AppError(400, twoStepMessages.wrongCode);
  }
  return deps.db.transaction().execute(async (transaction) => {
    const codes = await issueRecoveryCodes(transaction, userId);
    await tellOwnerOfChange(deps, transaction, owner, 'recovery-codes-renewed');
    return codes;
  });
}

/**
 * Before a change of credentials (password, email, a passkey removed): while two-step sign-in
 * is on, a current code from the app or an unused recovery code must come with it, in one field
 * (six digits are the app's). 400 with the code field's message otherwise.
 */
async function requireSecondFactorIfOn(
  deps: TwoStepDependencies,
  userId: string,
  code: string | undefined,
  caller: Caller,
): Promise<void> {
  if (!(await repo.isTwoStepOn(deps.db, userId))) return;
  if (code === undefined || code.trim() === '') {
    throw new AppError(400, twoStepMessages.secondFactorNeeded);
  }
  const owner = await ownerOf(deps, userId);
  const factor = isAuthenticatorCode(code) ? { code } : { recoveryCode: code };
  if (!(await checkSecondFactor(deps, owner, factor, caller))) {
    throw new AppError(400, twoStepMessages.wrongSecondFactor);
  }
}

/**
 * A second factor proved in a session already open (the support desk asks for one within 12
 * hours, ADR 020): a current code or a recovery code, under the same gates as at sign-in.
 */
async function stepUp(
  deps: TwoStepDependencies,
  session: { userId: string; sessionId: string },
  code: string,
  caller: Caller,
): Promise<{ secondFactorAt: string }> {
  await assertOn(deps, session.userId);
  await requireSecondFactorIfOn(deps, session.userId, code, caller);
  const provedAt = await deps.signIn.markSecondFactorProved(session.sessionId);
  if (!provedAt) throw new AppError(401, SESSION_ENDED_MESSAGE);
  return { secondFactorAt: provedAt.toISOString() };
}
