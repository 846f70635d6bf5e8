// Passwords: a reset through an emailed link, and a change by the signed-in member.

import type { Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import { passwordChangedEmail, passwordResetEmail } from '../../mail/templates';
import { mailLocaleOf } from '../../mail/mail-locale';
import type { Caller } from '../../security/client-address';
import { hashSecret, randomSecret } from '../../security/keys';
import { usersRepo } from '../users';
import type { CredentialChecks } from './credential-checks';
import * as codeRepo from './code-repo';
import {
  type AuthServiceDependencies,
  messages,
  PASSWORD_RESET_VALID_SECONDS,
  passwordFailureGate,
  secondsFromNow,
} from './rules';
import type { Sessions } from './sessions';

/** What the password journeys use: the service's dependencies and its shared checks. */
interface PasswordsContext {
  deps: AuthServiceDependencies;
  checks: CredentialChecks;
  sessions: Pick<Sessions, 'secureAccount'>;
}

export function createPasswords(
  deps: AuthServiceDependencies,
  checks: CredentialChecks,
  sessions: Sessions,
) {
  const context: PasswordsContext = { deps, checks, sessions };
  return {
    requestPasswordReset: (email: string, caller: Caller) =>
      requestPasswordReset(context, email, caller),
    /** The reset mail sent for the member by the support desk, in its transaction. */
    mailPasswordReset: (
      transaction: Transaction<Database>,
      user: { id: string; email: string; credentialVersion: number; locale: string | null },
    ) => mailPasswordReset(deps, transaction, user),
    confirmPasswordReset: (
      input: { email: string; code: string; newPassword: string },
      caller: Caller,
    ) => confirmPasswordReset(context, input, caller),
    changePassword: (
      input: {
        userId: string;
        sessionId: string;
        oldPassword: string;
        newPassword: string;
        /** While two-step sign-in is on: a code from the app, or a recovery code. */
        code?: string;
      },
      caller: Caller,
    ) => changePassword(context, input, caller),
  };
}

function passwordResetLink(deps: AuthServiceDependencies, email: string, code: string): string {
  const query = new URLSearchParams({ email, code });
  return `${deps.publicUrl}/account/recover/new?${query.toString()}`;
}

/** Answers the same whether or not the address has an account, and when a cap holds mail. */
async function requestPasswordReset(
  { deps, checks }: PasswordsContext,
  email: string,
  caller: Caller,
): Promise<string> {
  const { db } = deps;
  await checks.spendAttempt(caller);
  const user = await usersRepo.findUserByEmail(db, email);
  if (!user) return messages.resetRequested;
  if (!(await checks.mayMailReset(user, caller))) return messages.resetRequested;

  await db.transaction().execute((transaction) => mailPasswordReset(deps, transaction, user));
  return messages.resetRequested;
}

/**
 * A fresh reset code (the older ones die) and its mail, inside the caller's transaction: the
 * member's own request, or the support desk sending it for him.
 */
async function mailPasswordReset(
  deps: AuthServiceDependencies,
  transaction: Transaction<Database>,
  user: { id: string; email: string; credentialVersion: number; locale: string | null },
): Promise<void> {
  const code = randomSecret();
  await codeRepo.voidOpenCodes(transaction, user.id, ['password_reset']);
  await codeRepo.insertCode(transaction, {
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
      link: passwordResetLink(deps, user.email, code),
      validMinutes: PASSWORD_RESET_VALID_SECONDS / 60,
      locale: mailLocaleOf(user),
    }),
    uselessAfter: secondsFromNow(PASSWORD_RESET_VALID_SECONDS),
  });
}

async function confirmPasswordReset(
  { deps, checks, sessions }: PasswordsContext,
  input: { email: string; code: string; newPassword: string },
  caller: Caller,
): Promise<void> {
  const { db } = deps;
  await deps.passwordScreen.assertAcceptable(input.newPassword);
  const code = {
    purpose: 'password_reset',
    codeHash: hashSecret(input.code),
    email: input.email,
    requireCurrentCredentials: true,
  } as const;
  // A bogus code is refused before the costly hash; the code is used (atomically) below.
  const open = await codeRepo.findOpenCode(db, code);
  if (!open) throw new AppError(400, messages.resetLinkInvalid);
  const passwordHash = await deps.hasher.hash(input.newPassword);
  const account = await db.transaction().execute(async (transaction) => {
    await usersRepo.lockUser(transaction, open.userId);
    const used = await codeRepo.consumeCode(transaction, code);
    if (used?.userId !== open.userId) return undefined;
    await usersRepo.updatePasswordHash(transaction, used.userId, passwordHash);
    // The link reached the owner's inbox: the address is proven.
    await usersRepo.markEmailVerified(transaction, used.userId);
    const { email, credentialVersion, locale } = await sessions.secureAccount(
      transaction,
      used.userId,
      { reason: 'password reset' },
    );
    await deps.mail.enqueue(transaction, {
      to: email,
      userId: used.userId,
      template: 'password-changed',
      content: passwordChangedEmail({
        supportEmail: deps.supportEmail,
        locale: mailLocaleOf({ locale }),
      }),
    });
    return { userId: used.userId, email, credentialVersion };
  });
  if (!account) throw new AppError(400, messages.resetLinkInvalid);
  // The owner is back in from here: this address's failures are forgotten.
  await deps.rateLimiter.reset(
    passwordFailureGate,
    checks.attemptKey(account.email.toLowerCase(), caller),
  );
  await checks.rememberSignInAddress(
    { id: account.userId, credentialVersion: account.credentialVersion },
    caller,
  );
}

async function changePassword(
  { deps, checks, sessions }: PasswordsContext,
  input: {
    userId: string;
    sessionId: string;
    oldPassword: string;
    newPassword: string;
    /** While two-step sign-in is on: a code from the app, or a recovery code. */
    code?: string;
  },
  caller: Caller,
): Promise<void> {
  const { db } = deps;
  await deps.passwordScreen.assertAcceptable(input.newPassword);
  const user = await usersRepo.findUserById(db, input.userId);
  if (!user) throw new AppError(401, messages.sessionEnded);
  if (!user.passwordHash) throw new AppError(400, messages.noPasswordYet);
  await checks.confirmCurrentPassword(user, input.oldPassword, caller);
  await deps.secondStep.requireSecondFactorIfOn(user.id, input.code, caller);
  const passwordHash = await deps.hasher.hash(input.newPassword);
  await db.transaction().execute(async (transaction) => {
    // Only over the credentials just checked: a reset that landed meanwhile wins.
    const isSet = await usersRepo.updatePasswordHash(transaction, user.id, passwordHash, {
      credentialVersion: user.credentialVersion,
    });
    if (!isSet) throw new AppError(401, messages.sessionEnded);
    const { email, locale } = await sessions.secureAccount(transaction, user.id, {
      reason: 'password changed',
      exceptSessionId: input.sessionId,
    });
    await deps.mail.enqueue(transaction, {
      to: email,
      userId: user.id,
      template: 'password-changed',
      content: passwordChangedEmail({
        supportEmail: deps.supportEmail,
        locale: mailLocaleOf({ locale }),
      }),
    });
  });
}
