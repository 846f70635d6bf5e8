// Sign-ins the member can see and hear about (ADR 019): every sign-in and every wrong password
// for an existing account is recorded; a sign-in from a device and network the account has not
// used in 30 days mails the owner a notice with a "This wasn't me" link, which ends every session,
// clears the password and mails a reset link. Recording never fails nor holds up a sign-in: its
// errors are logged and swallowed, and its mail goes through the outbox in its own transaction.
import { type SignInItem, signInNoticeMessages } from '@kegel/contract';
import type { PageLocale } from '@kegel/contract/i18n';
import type { Kysely, Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { AppError } from '../../errors';
import type { Mailer } from '../../mail/outbox';
import { mailLocaleOf } from '../../mail/mail-locale';
import { newSignInEmail, signInNotMeResetEmail } from '../../mail/sign-in-templates';
import type { Caller } from '../../security/client-address';
import { deviceLabel, deviceLabelIn } from '../../security/device-label';
import { hashSecret, randomSecret } from '../../security/keys';
import { signInNetwork } from '../../security/sign-in-network';
import { passkeysRepo } from '../passkeys';
import { usersRepo } from '../users';
import * as codeRepo from './code-repo';
import { PASSWORD_RESET_VALID_SECONDS, secondsFromNow } from './rules';
import * as signInEventRepo from './sign-in-event-repo';

/** How many events Account Settings lists. */
export const SIGN_IN_HISTORY_LIMIT = 20;
/** A device and network the account signed in from within this many days is not new. */
export const FAMILIAR_WITHIN_DAYS = 30;
/** How long a notice's "This wasn't me" link works: a week of not reading mail, at most. */
export const NOT_ME_VALID_SECONDS = 7 * 24 * 60 * 60;
/** Events older than this are deleted by the session pruning job (but an account's latest). */
export const SIGN_IN_EVENTS_KEEP_DAYS = 90;

/** Where a recording that failed is reported (the server's log). */
export interface SignInLog {
  warn(details: object, message: string): void;
}

export interface SignInNoticeDependencies {
  db: Kysely<Database>;
  mail: Mailer;
  publicUrl: string;
  supportEmail: string;
  log?: SignInLog;
}

/** What one sign-in attempt was: its account, how, and from where. */
export interface SignInAttempt {
  userId: string;
  method: string;
  caller: Caller;
}

/** Where an attempt came from, as its event records it. */
export function whereFrom(caller: Caller) {
  return {
    deviceLabel: deviceLabel(caller.userAgent),
    clientAddress: caller.clientAddress,
    network: signInNetwork(caller.clientAddress),
  };
}

/**
 * Records a wrong password (or, later, a wrong second-step code) for an existing account. Never
 * throws: a failure to record is logged, and the attempt is answered as it would have been.
 */
export async function recordSignInFailure(
  db: Kysely<Database>,
  attempt: SignInAttempt,
  log?: SignInLog,
): Promise<void> {
  try {
    await signInEventRepo.insertSignInEvent(db, {
      userId: attempt.userId,
      method: attempt.method,
      outcome: 'failure',
      ...whereFrom(attempt.caller),
    });
  } catch (error) {
    log?.warn({ err: error }, 'sign-ins: a failed attempt was not recorded');
  }
}

/**
 * Records a sign-in whose session just opened, and mails the notice if it came from a device and
 * network the account has not used lately. Never throws (see recordSignInFailure).
 */
export async function recordSignInSuccess(
  deps: SignInNoticeDependencies,
  attempt: SignInAttempt,
  {
    isNewHere = false,
  }: {
    /** The opening of the session found the sign-in new here (it records a familiar one itself). */
    isNewHere?: boolean;
  } = {},
): Promise<void> {
  try {
    if (isNewHere) await recordWithNotice(deps, attempt);
    else await recordAndNotify(deps, attempt);
  } catch (error) {
    deps.log?.warn({ err: error }, 'sign-ins: a sign-in was not recorded');
  }
}

/**
 * Records the sign-in; when it comes from a device and network the account has not signed in
 * from lately, the event and the notice to the owner go in together, in one transaction.
 */
async function recordAndNotify(
  deps: SignInNoticeDependencies,
  attempt: SignInAttempt,
): Promise<void> {
  // An account with no sign-in recorded is signing in for the first time: after registering, or
  // made just now by a Google or Apple sign-in, or older than the history (ADR 019). That needs
  // no notice either.
  const isRecorded = await signInEventRepo.insertFamiliarSignIn(deps.db, {
    userId: attempt.userId,
    method: attempt.method,
    ...whereFrom(attempt.caller),
    withinDays: FAMILIAR_WITHIN_DAYS,
  });
  if (!isRecorded) await recordWithNotice(deps, attempt);
}

/** The event of a sign-in from somewhere new, and its notice to the owner, in one transaction. */
async function recordWithNotice(
  deps: SignInNoticeDependencies,
  attempt: SignInAttempt,
): Promise<void> {
  const from = whereFrom(attempt.caller);
  const code = randomSecret();
  await deps.db.transaction().execute(async (transaction) => {
    const signedInAt = await signInEventRepo.insertSignInEvent(transaction, {
      userId: attempt.userId,
      method: attempt.method,
      outcome: 'success',
      ...from,
      notMe: { codeHash: hashSecret(code), validSeconds: NOT_ME_VALID_SECONDS },
    });
    const account = await usersRepo.findUserById(transaction, attempt.userId);
    if (!account) return;
    const linkValidUntil = new Date(signedInAt.getTime() + NOT_ME_VALID_SECONDS * 1000);
    await deps.mail.enqueue(transaction, {
      to: account.email,
      userId: attempt.userId,
      template: 'new-sign-in',
      content: newSignInEmail({
        signedInAt,
        method: attempt.method,
        device: deviceLabelIn(mailLocaleOf(account), from.deviceLabel),
        clientAddress: from.clientAddress,
        notMeLink: `${deps.publicUrl}/account/sign-in-not-me?${new URLSearchParams({ code }).toString()}`,
        linkValidUntil,
        supportEmail: deps.supportEmail,
        locale: mailLocaleOf(account),
      }),
      uselessAfter: linkValidUntil,
    });
  });
}

/** The member's latest sign-ins and failed attempts, newest first. */
export async function listSignIns(
  db: Kysely<Database>,
  userId: string,
  /** What the devices are named in: the page's language. */
  locale: PageLocale,
): Promise<SignInItem[]> {
  const events = await signInEventRepo.listSignInEvents(db, userId, SIGN_IN_HISTORY_LIMIT);
  return events.map((event) => ({
    at: event.createdAt.toISOString(),
    method: event.method,
    device: deviceLabelIn(locale, event.deviceLabel),
    address: event.clientAddress,
    outcome: event.outcome,
  }));
}

export interface ReportSignInDependencies extends SignInNoticeDependencies {
  /** Ends every session and voids the reset and email-change codes (the auth service's). */
  secureAccount(
    transaction: Transaction<Database>,
    userId: string,
    options: { reason: string },
  ): Promise<{ email: string; credentialVersion: number; locale: string | null }>;
}

/**
 * "This wasn't me": the code is used (once), every session ends, the password is cleared (whoever
 * signed in may know it), the passkeys added since that sign-in are removed (whoever signed in
 * may have planted one) and a reset link goes to the address the notice was mailed to, all in one
 * transaction. That address, not the account's: whoever signed in may have moved the account to
 * his own since. Google and Apple sign-ins keep working: they prove the owner's own accounts there.
 */
export async function reportSignIn(
  deps: ReportSignInDependencies,
  input: { code: string },
): Promise<string> {
  const codeHash = hashSecret(input.code);
  const open = await signInEventRepo.findOpenNotMeCode(deps.db, codeHash);
  if (!open) throw new AppError(400, signInNoticeMessages.linkInvalid);
  await deps.db.transaction().execute(async (transaction) => {
    await usersRepo.lockUser(transaction, open.userId);
    const used = await signInEventRepo.consumeNotMeCode(transaction, codeHash);
    if (used?.userId !== open.userId) throw new AppError(400, signInNoticeMessages.linkInvalid);
    await usersRepo.removePassword(transaction, used.userId);
    await passkeysRepo.deletePasskeysAddedSince(transaction, used.userId, used.createdAt);
    const account = await deps.secureAccount(transaction, used.userId, {
      reason: 'sign-in reported as not the owner',
    });
    const noticedAddress = await signInEventRepo.findNoticeRecipient(transaction, used.id);
    await mailResetLink(deps, transaction, {
      userId: used.userId,
      credentialVersion: account.credentialVersion,
      email: noticedAddress ?? account.email,
      locale: account.locale,
    });
  });
  return signInNoticeMessages.secured;
}

/**
 * A reset code at the account's new credential version, and its link mailed to the address
 * given (a reset code is checked against the address it was issued for, not the account's now).
 */
async function mailResetLink(
  deps: SignInNoticeDependencies,
  transaction: Transaction<Database>,
  account: { userId: string; email: string; credentialVersion: number; locale: string | null },
): Promise<void> {
  const code = randomSecret();
  await codeRepo.insertCode(transaction, {
    userId: account.userId,
    purpose: 'password_reset',
    email: account.email,
    codeHash: hashSecret(code),
    validSeconds: PASSWORD_RESET_VALID_SECONDS,
    credentialVersion: account.credentialVersion,
  });
  const query = new URLSearchParams({ email: account.email, code });
  await deps.mail.enqueue(transaction, {
    to: account.email,
    userId: account.userId,
    template: 'sign-in-not-me-reset',
    content: signInNotMeResetEmail({
      link: `${deps.publicUrl}/account/recover/new?${query.toString()}`,
      validMinutes: PASSWORD_RESET_VALID_SECONDS / 60,
      supportEmail: deps.supportEmail,
      locale: mailLocaleOf(account),
    }),
    uselessAfter: secondsFromNow(PASSWORD_RESET_VALID_SECONDS),
  });
}
