// An email change: asked for with the password, confirmed from the link mailed to the new
// address; its undo is email-change-undo.ts.

import { AppError, isUniqueViolation } from '../../errors';
import { emailChangeConfirmationEmail } from '../../mail/templates';
import { mailLocaleOf } from '../../mail/mail-locale';
import type { Caller } from '../../security/client-address';
import { hashSecret, randomSecret } from '../../security/keys';
import { usersRepo } from '../users';
import type { CredentialChecks } from './credential-checks';
import type { EmailChangeUndo } from './email-change-undo';
import * as codeRepo from './code-repo';
import * as undoRepo from './undo-repo';
import {
  type AuthServiceDependencies,
  EMAIL_CHANGE_VALID_SECONDS,
  messages,
  secondsFromNow,
} from './rules';

export function createEmailChange(
  deps: AuthServiceDependencies,
  checks: CredentialChecks,
  emailChangeUndo: EmailChangeUndo,
) {
  return {
    requestEmailChange: (
      input: { userId: string; newEmail: string; password: string; code?: string },
      caller: Caller,
    ) => requestEmailChange({ deps, checks, emailChangeUndo }, input, caller),
    confirmEmailChange: (input: { code: string; newEmail: string }) =>
      confirmEmailChange(deps, input),
  };
}

function emailChangeLink(deps: AuthServiceDependencies, newEmail: string, code: string): string {
  const query = new URLSearchParams({ newEmail, code });
  return `${deps.publicUrl}/account/verify-email?${query.toString()}`;
}

async function requestEmailChange(
  context: {
    deps: AuthServiceDependencies;
    checks: CredentialChecks;
    emailChangeUndo: Pick<EmailChangeUndo, 'issueUndoLinks'>;
  },
  input: { userId: string; newEmail: string; password: string; code?: string },
  caller: Caller,
): Promise<void> {
  const { deps, checks, emailChangeUndo } = context;
  const { db } = deps;
  const user = await usersRepo.findUserById(db, input.userId);
  if (!user) throw new AppError(401, messages.sessionEnded);
  if (!user.passwordHash) throw new AppError(400, messages.noPasswordYet);
  await checks.confirmCurrentPassword(user, input.password, caller);
  if (user.email.toLowerCase() === input.newEmail.toLowerCase()) {
    throw new AppError(400, messages.sameEmail);
  }
  if (await checks.isAddressTaken(input.newEmail)) throw new AppError(409, messages.emailInUse);
  // While two-step sign-in is on, the password alone does not move the account (ADR 018).
  await deps.secondStep.requireSecondFactorIfOn(user.id, input.code, caller);

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
    await codeRepo.voidOpenCodes(transaction, user.id, ['email_change']);
    await codeRepo.insertCode(transaction, {
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
        link: emailChangeLink(deps, input.newEmail, code),
        newEmail: input.newEmail,
        locale: mailLocaleOf(user),
      }),
      uselessAfter: secondsFromNow(EMAIL_CHANGE_VALID_SECONDS),
    });
    await emailChangeUndo.issueUndoLinks(transaction, { user, newEmail: input.newEmail });
  });
}

async function confirmEmailChange(
  deps: AuthServiceDependencies,
  input: { code: string; newEmail: string },
): Promise<void> {
  const { db } = deps;
  const code = {
    purpose: 'email_change',
    codeHash: hashSecret(input.code),
    email: input.newEmail,
    requireCurrentCredentials: true,
  } as const;
  const open = await codeRepo.findOpenCode(db, code);
  if (!open) throw new AppError(400, messages.emailLinkInvalid);
  if (await undoRepo.isAddressHeldForUndo(db, input.newEmail)) {
    throw new AppError(409, messages.emailInUse);
  }
  try {
    await db.transaction().execute(async (transaction) => {
      await usersRepo.lockUser(transaction, open.userId);
      const used = await codeRepo.consumeCode(transaction, code);
      if (used?.userId !== open.userId) throw new AppError(400, messages.emailLinkInvalid);
      await usersRepo.updateEmail(transaction, used.userId, used.email);
      await usersRepo.markEmailVerified(transaction, used.userId);
      // Links mailed to the old address (a reset) must not work on the account any more.
      await usersRepo.raiseCredentialVersion(transaction, used.userId);
      await codeRepo.voidOpenCodes(transaction, used.userId, ['password_reset', 'email_change']);
    });
  } catch (error) {
    // Taken by someone else since the request: nothing changed, the code stays usable.
    if (isUniqueViolation(error)) throw new AppError(409, messages.emailInUse);
    throw error;
  }
  deps.onEmailChanged?.(open.userId);
}
