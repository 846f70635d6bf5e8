// The second step of a sign-in (ADR 018): after a right password (or Google, or Apple), a
// single-use token instead of a session; with a code, the token gives the session.
import { type MfaRequired, type TokenPair, twoStepMessages } from '@kegel/contract';

import type { SignInMethod } from '../../db/schema';
import { AppError } from '../../errors';
import type { Caller } from '../../security/client-address';
import { hashSecret, randomSecret } from '../../security/keys';
import { usersRepo } from '../users';
import { checkSecondFactor, type SecondFactor } from './code-checks';
import * as repo from './repo';
import {
  SIGN_IN_CHALLENGE_SECONDS,
  type TwoStepDependencies,
  WRONG_CODES_PER_CHALLENGE,
} from './rules';

/**
 * Undefined when the account has no second step; else a single-use token for `verifySignIn`,
 * bound to the account, the method and the credentials it was issued at. No session opens.
 */
export async function challengeIfOn(
  deps: TwoStepDependencies,
  account: { userId: string; method: SignInMethod; credentialVersion: number },
): Promise<MfaRequired | undefined> {
  if (!(await repo.isTwoStepOn(deps.db, account.userId))) return undefined;
  const mfaToken = randomSecret();
  await repo.insertChallenge(deps.db, {
    userId: account.userId,
    tokenHash: hashSecret(mfaToken),
    signInMethod: account.method,
    credentialVersion: account.credentialVersion,
    validSeconds: SIGN_IN_CHALLENGE_SECONDS,
  });
  return { mfaRequired: true, mfaToken };
}

/**
 * The token of `challengeIfOn` and a code give the session. A wrong code leaves the token for a
 * retry, up to WRONG_CODES_PER_CHALLENGE; a credential change since the first step (password
 * reset or change, email change, "this wasn't me") kills it.
 */
export async function verifySignIn(
  deps: TwoStepDependencies,
  input: { mfaToken: string } & SecondFactor,
  caller: Caller,
): Promise<TokenPair> {
  const { db, signIn } = deps;
  const challenge = await repo.findOpenChallenge(db, hashSecret(input.mfaToken));
  if (!challenge) throw new AppError(401, twoStepMessages.signInExpired);
  const owner = await usersRepo.findUserById(db, challenge.userId);
  if (owner?.credentialVersion !== challenge.credentialVersion) {
    throw new AppError(401, twoStepMessages.signInExpired);
  }
  if (!(await checkSecondFactor(deps, owner, input, caller))) {
    await repo.countWrongCode(db, challenge.id, WRONG_CODES_PER_CHALLENGE);
    throw new AppError(
      401,
      'code' in input ? twoStepMessages.wrongCode : twoStepMessages.wrongRecoveryCode,
    );
  }
  if (!(await repo.consumeChallenge(db, challenge.id))) {
    throw new AppError(401, twoStepMessages.signInExpired);
  }
  const tokens = await signIn.startSession(owner.id, {
    method: challenge.signInMethod,
    caller,
    credentialVersion: challenge.credentialVersion,
    provedSecondFactor: true,
  });
  // Only now is the network the owner's: both steps were his.
  await signIn.rememberSignInAddress(owner, caller);
  return tokens;
}
