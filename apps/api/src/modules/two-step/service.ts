// Two-step sign-in (ADR 018): turning it on with an authenticator app, its recovery codes,
// turning it off, and the second step of every sign-in. No HTTP and no SQL here: routes.ts calls
// these, repo.ts holds the queries. Every code is checked under the failure gates of a password
// (the sign-in machinery handed in), and each is taken once.
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
import { hashSecret, randomSecret, seal, unseal } from '../../security/keys';
import { usersRepo } from '../users';
import * as repo from './repo';
import {
  authenticatorUrl,
  type CodeOwner,
  newAuthenticatorSecret,
  newRecoveryCodes,
  normalizedRecoveryCode,
  SIGN_IN_CHALLENGE_SECONDS,
  stepOfCode,
  type TwoStepDependencies,
  WRONG_CODES_PER_CHALLENGE,
} from './rules';

export type TwoStepService = ReturnType<typeof createTwoStepService>;

/** A code from the app, or a recovery code: what proves the second step. */
export type SecondFactor = { code: string } | { recoveryCode: string };

export function createTwoStepService(deps: TwoStepDependencies) {
  const { db, secretKey, signIn } = deps;

  async function ownerOf(userId: string): Promise<CodeOwner> {
    const user = await usersRepo.findUserById(db, userId);
    if (!user) throw new AppError(401, SESSION_ENDED_MESSAGE);
    return user;
  }

  /**
   * The authenticator's secret in clear; undefined if it cannot be opened (TOKEN_SECRET was
   * replaced since it was sealed): its codes then fail, and a recovery code still signs in.
   */
  function openSecret(sealedSecret: string): string | undefined {
    try {
      return unseal(secretKey, sealedSecret);
    } catch {
      return undefined;
    }
  }

  /** Whether `code` is the app's code now, never taken before; it is taken here. */
  function checkAppCode(
    owner: CodeOwner,
    code: string,
    caller: Caller,
    options: { confirmed: boolean },
  ): Promise<boolean> {
    return signIn.checkUnderFailureGates(owner, caller, async () => {
      const authenticator = await repo.findAuthenticator(db, owner.id);
      if (!authenticator || (authenticator.confirmedAt !== null) !== options.confirmed) {
        return false;
      }
      const secret = openSecret(authenticator.sealedSecret);
      const step =
        secret === undefined ? undefined : stepOfCode(secret, code.replace(/[\s-]/g, ''));
      return step !== undefined && repo.takeStep(db, owner.id, step, options);
    });
  }

  /** Whether `recoveryCode` is one of the account's unused codes; it is used up here. */
  function checkRecoveryCode(owner: CodeOwner, recoveryCode: string, caller: Caller) {
    const codeHash = hashSecret(normalizedRecoveryCode(recoveryCode));
    return signIn.checkUnderFailureGates(owner, caller, () =>
      repo.useRecoveryCode(db, owner.id, codeHash),
    );
  }

  function checkSecondFactor(owner: CodeOwner, factor: SecondFactor, caller: Caller) {
    return 'code' in factor
      ? checkAppCode(owner, factor.code, caller, { confirmed: true })
      : checkRecoveryCode(owner, factor.recoveryCode, caller);
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

  async function assertOn(userId: string): Promise<void> {
    if (!(await repo.isTwoStepOn(db, userId))) throw new AppError(409, twoStepMessages.notOn);
  }

  return {
    isOn: (userId: string) => repo.isTwoStepOn(db, userId),

    /** A new secret for the app, off until confirmed; it replaces one not yet confirmed. */
    async setUp(account: { id: string; email: string }): Promise<TwoStepSetupResponse> {
      const secret = newAuthenticatorSecret();
      const isSaved = await repo.saveUnconfirmedAuthenticator(
        db,
        account.id,
        seal(secretKey, secret),
      );
      if (!isSaved) throw new AppError(409, twoStepMessages.alreadyOn);
      return { secret, otpauthUrl: authenticatorUrl(secret, account.email) };
    },

    /**
     * Turns two-step sign-in on with a first code from the app, proving it was set up, and
     * answers the recovery codes. Sessions already open stay open: they were begun by the owner.
     */
    async confirm(userId: string, code: string, caller: Caller): Promise<string[]> {
      const owner = await ownerOf(userId);
      const authenticator = await repo.findAuthenticator(db, userId);
      if (authenticator?.confirmedAt) throw new AppError(409, twoStepMessages.alreadyOn);
      if (!authenticator) throw new AppError(409, twoStepMessages.noSetupWaiting);
      if (!(await checkAppCode(owner, code, caller, { confirmed: false }))) {
        throw new AppError(400, twoStepMessages.wrongCode);
      }
      return db.transaction().execute(async (transaction) => {
        if (!(await repo.markConfirmed(transaction, userId))) {
          throw new AppError(409, twoStepMessages.alreadyOn);
        }
        return issueRecoveryCodes(transaction, userId);
      });
    },

    /** Turns two-step sign-in off, proven by a current code or a recovery code. */
    async turnOff(userId: string, factor: SecondFactor, caller: Caller): Promise<void> {
      const owner = await ownerOf(userId);
      await assertOn(userId);
      if (!(await checkSecondFactor(owner, factor, caller))) {
        const isAppFactor = 'code' in factor;
        throw new AppError(
          400,
          isAppFactor ? twoStepMessages.wrongCode : twoStepMessages.wrongRecoveryCode,
        );
      }
      await db.transaction().execute((transaction) => repo.deleteTwoStep(transaction, userId));
    },

    /** Ten new recovery codes for a current code from the app; the old ones stop working. */
    async renewRecoveryCodes(userId: string, code: string, caller: Caller): Promise<string[]> {
      const owner = await ownerOf(userId);
      await assertOn(userId);
      if (!(await checkAppCode(owner, code, caller, { confirmed: true }))) {
        throw new AppError(400, twoStepMessages.wrongCode);
      }
      return issueRecoveryCodes(db, userId);
    },

    /**
     * Before a change of credentials (password, email, a passkey removed): while two-step
     * sign-in is on, a current code from the app or an unused recovery code must come with it,
     * in one field (six digits are the app's). 400 with the code field's message otherwise.
     */
    async requireSecondFactorIfOn(
      userId: string,
      code: string | undefined,
      caller: Caller,
    ): Promise<void> {
      if (!(await repo.isTwoStepOn(db, userId))) return;
      if (code === undefined || code.trim() === '') {
        throw new AppError(400, twoStepMessages.secondFactorNeeded);
      }
      const owner = await ownerOf(userId);
      const factor = isAuthenticatorCode(code) ? { code } : { recoveryCode: code };
      if (!(await checkSecondFactor(owner, factor, caller))) {
        throw new AppError(400, twoStepMessages.wrongSecondFactor);
      }
    },

    /**
     * After a right password (or Google, or Apple): undefined when the account has no second
     * step, else a single-use token for `verifySignIn`, bound to the account, the method and the
     * credentials it was issued at. No session opens.
     */
    async challengeIfOn(account: {
      userId: string;
      method: SignInMethod;
      credentialVersion: number;
    }): Promise<MfaRequired | undefined> {
      if (!(await repo.isTwoStepOn(db, account.userId))) return undefined;
      const mfaToken = randomSecret();
      await repo.insertChallenge(db, {
        userId: account.userId,
        tokenHash: hashSecret(mfaToken),
        signInMethod: account.method,
        credentialVersion: account.credentialVersion,
        validSeconds: SIGN_IN_CHALLENGE_SECONDS,
      });
      return { mfaRequired: true, mfaToken };
    },

    /**
     * The second step of a sign-in: the token of `challengeIfOn` and a code give the session.
     * A wrong code leaves the token for a retry, up to WRONG_CODES_PER_CHALLENGE; a password
     * change (or reset, or email change) since the first step kills it.
     */
    async verifySignIn(
      input: { mfaToken: string } & SecondFactor,
      caller: Caller,
    ): Promise<TokenPair> {
      const challenge = await repo.findOpenChallenge(db, hashSecret(input.mfaToken));
      if (!challenge) throw new AppError(401, twoStepMessages.signInExpired);
      const owner = await usersRepo.findUserById(db, challenge.userId);
      if (owner?.credentialVersion !== challenge.credentialVersion) {
        throw new AppError(401, twoStepMessages.signInExpired);
      }
      if (!(await checkSecondFactor(owner, input, caller))) {
        await repo.countWrongCode(db, challenge.id, WRONG_CODES_PER_CHALLENGE);
        const isAppFactor = 'code' in input;
        throw new AppError(
          401,
          isAppFactor ? twoStepMessages.wrongCode : twoStepMessages.wrongRecoveryCode,
        );
      }
      if (!(await repo.consumeChallenge(db, challenge.id))) {
        throw new AppError(401, twoStepMessages.signInExpired);
      }
      const tokens = await signIn.startSession(owner.id, {
        method: challenge.signInMethod,
        caller,
        credentialVersion: challenge.credentialVersion,
      });
      await signIn.rememberSignInAddress(owner, caller);
      return tokens;
    },
  };
}
