// The checks every two-step journey shares: a code from the app (its time step taken once) and a
// recovery code (used once), each under the failure gates of a password (rules.ts,
// SignInMachinery), and the account a code is checked for.
import { AppError, SESSION_ENDED_MESSAGE } from '../../errors';
import type { Caller } from '../../security/client-address';
import { hashSecret, unseal } from '../../security/keys';
import { recordSignInFailure } from '../auth';
import { usersRepo } from '../users';
import * as repo from './repo';
import {
  type CodeOwner,
  normalizedRecoveryCode,
  stepOfCode,
  type TwoStepDependencies,
} from './rules';

/** A code from the app, or a recovery code: what proves the second step. */
export type SecondFactor = { code: string } | { recoveryCode: string };

/** The signed-in member's account, as his codes are checked for it. */
export async function ownerOf(deps: TwoStepDependencies, userId: string): Promise<CodeOwner> {
  const user = await usersRepo.findUserById(deps.db, userId);
  if (!user) throw new AppError(401, SESSION_ENDED_MESSAGE);
  return user;
}

/**
 * The authenticator's secret in clear; undefined if it cannot be opened (TOKEN_SECRET was
 * replaced since it was sealed): its codes then fail, and a recovery code still signs in.
 */
function openSecret(secretKey: Buffer, sealedSecret: string): string | undefined {
  try {
    return unseal(secretKey, sealedSecret);
  } catch {
    return undefined;
  }
}

/**
 * Whether `code` is the app's code now and its step was never taken; it is taken here. `confirmed`
 * says which authenticator: the one that is on, or the one waiting for its first code.
 */
export function checkAppCode(
  deps: TwoStepDependencies,
  owner: CodeOwner,
  code: string,
  caller: Caller,
  options: { confirmed: boolean },
): Promise<boolean> {
  return deps.signIn.checkUnderFailureGates(owner, caller, async () => {
    const authenticator = await repo.findAuthenticator(deps.db, owner.id);
    if (!authenticator || (authenticator.confirmedAt !== null) !== options.confirmed) {
      return false;
    }
    const secret = openSecret(deps.secretKey, authenticator.sealedSecret);
    const step = secret === undefined ? undefined : stepOfCode(secret, code.replace(/[\s-]/g, ''));
    return step !== undefined && repo.takeStep(deps.db, owner.id, step, options);
  });
}

/** Whether `recoveryCode` is one of the account's unused codes; it is used up here. */
function checkRecoveryCode(
  deps: TwoStepDependencies,
  owner: CodeOwner,
  recoveryCode: string,
  caller: Caller,
): Promise<boolean> {
  const codeHash = hashSecret(normalizedRecoveryCode(recoveryCode));
  return deps.signIn.checkUnderFailureGates(owner, caller, () =>
    repo.useRecoveryCode(deps.db, owner.id, codeHash),
  );
}

/**
 * The second step of a sign-in or a change: the app's code, or a recovery code. A wrong one is a
 * failed attempt in the member's sign-in history, as a wrong password is.
 */
export async function checkSecondFactor(
  deps: TwoStepDependencies,
  owner: CodeOwner,
  factor: SecondFactor,
  caller: Caller,
): Promise<boolean> {
  const isRight =
    'code' in factor
      ? await checkAppCode(deps, owner, factor.code, caller, { confirmed: true })
      : await checkRecoveryCode(deps, owner, factor.recoveryCode, caller);
  if (!isRight)
    await recordSignInFailure(deps.db, { userId: owner.id, method: 'two-step', caller });
  return isRight;
}
